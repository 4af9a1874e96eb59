// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Vm} from "./utils/Test.sol";
import {RefereeBase} from "./ChessRefereeBase.t.sol";
import {ChessReferee} from "../src/ChessReferee.sol";
import {ChessChannel} from "../src/ChessChannel.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {RepetitionChain} from "../src/RepetitionChain.sol";
import {Move, Delegation, Resignation, Result, Auth} from "../src/ChannelHash.sol";

/// @notice Shared harness of the channel tests: players with signing keys, channel games,
/// signed transcripts built move by move with the rules library, and authorisations.
abstract contract ChannelBase is RefereeBase {
    ChessChannel internal channel;

    uint256 internal constant ALICE_PK = 0xA11CE;
    uint256 internal constant BOB_PK = 0xB0B;
    uint256 internal constant CAROL_PK = 0xCA201;
    uint256 internal constant SESSION1_PK = 0x5E551;
    uint256 internal constant SESSION2_PK = 0x5E552;
    uint32 internal constant WINDOW = 120;
    /// @dev secp256k1 group order.
    uint256 internal constant N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141;

    /// @dev A signed transcript: the start move and then one move per ply.
    Move[] internal line;

    function setUp() public virtual override {
        super.setUp();
        alice = vm.addr(ALICE_PK);
        bob = vm.addr(BOB_PK);
        carol = vm.addr(CAROL_PK);
        vm.deal(alice, 100 ether);
        vm.deal(bob, 100 ether);
        vm.deal(carol, 100 ether);
        channel = ref.channel();
    }

    // ---------------------------------------------------------------- games

    /// @dev alice (white) vs bob, ETH stake, standard start, joined (off-chain).
    function _startChannelGame() internal returns (uint256 id) {
        id = _createChannel(alice, bob, "");
        _join(id, bob, STAKE);
        _resetLine(id, ChessRules.initialState());
    }

    function _createChannel(address white, address black, bytes memory start) internal returns (uint256 id) {
        vm.recordLogs();
        vm.prank(white);
        id = ref.createChannelGame{value: STAKE}(black, true, address(0), STAKE, INITIAL, INCREMENT, 0, start, WINDOW);
        _absorb(vm.getRecordedLogs());
    }

    /// @dev Starts `line` with the start move of game `id` from `start`.
    function _resetLine(uint256 id, bytes memory start) internal {
        delete line;
        line.push(_startMove(id, start));
    }

    function _startMove(uint256 id, bytes memory start) internal pure returns (Move memory) {
        return Move({
            gameId: id,
            ply: 0,
            mv: 0,
            state: start,
            history: RepetitionChain.start(ChessRules.repetitionKey(start)),
            whiteTime: INITIAL,
            blackTime: INITIAL,
            previous: 0
        });
    }

    // ---------------------------------------------------------------- moves

    /// @dev The valid successor of `q` by `uci`, its mover having spent `spent` seconds.
    function _next(Move memory q, string memory uci, uint32 spent) internal view returns (Move memory m) {
        bytes memory s = bytes.concat(q.state);
        bool white = ChessRules.whiteToMove(s);
        uint24 mv = _uci(uci);
        assertEq(ChessRules.applyMove(s, mv), 0, "test move must be legal");
        m = Move({
            gameId: q.gameId,
            ply: q.ply + 1,
            mv: mv,
            state: s,
            history: RepetitionChain.afterMove(s, q.history),
            whiteTime: white ? q.whiteTime - spent + INCREMENT : q.whiteTime,
            blackTime: white ? q.blackTime : q.blackTime - spent + INCREMENT,
            previous: channel.hashMove(q)
        });
    }

    /// @dev Extends `line` by the space-separated UCI moves, 2 s each.
    function _extend(string memory ucis) internal {
        uint24[] memory mvs = _uciList(ucis);
        for (uint256 i; i < mvs.length; ++i) {
            Move memory q = line[line.length - 1];
            bytes memory s = bytes.concat(q.state);
            assertEq(ChessRules.applyMove(s, mvs[i]), 0, "test move must be legal");
            bool white = ChessRules.whiteToMove(q.state);
            line.push(
                Move({
                    gameId: q.gameId,
                    ply: q.ply + 1,
                    mv: mvs[i],
                    state: s,
                    history: RepetitionChain.afterMove(s, q.history),
                    whiteTime: white ? q.whiteTime - 2 + INCREMENT : q.whiteTime,
                    blackTime: white ? q.blackTime : q.blackTime - 2 + INCREMENT,
                    previous: channel.hashMove(q)
                })
            );
        }
    }

    /// @dev The private key of the author of `m` among alice (white) and bob (black).
    function _authorKey(Move memory m) internal pure returns (uint256) {
        return ChessRules.whiteToMove(m.state) ? BOB_PK : ALICE_PK;
    }

    // ---------------------------------------------------------------- signatures

    function _sig(uint256 pk, bytes32 digest) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(pk, digest);
        return abi.encodePacked(r, s, v);
    }

    function _direct(bytes memory signature) internal pure returns (Auth memory a) {
        a.signature = signature;
    }

    function _moveDigest(Move memory m) internal view returns (bytes32) {
        return channel.digestOf(channel.hashMove(m));
    }

    /// @dev `m` signed directly by `pk`.
    function _signMove(uint256 pk, Move memory m) internal view returns (Auth memory) {
        return _direct(_sig(pk, _moveDigest(m)));
    }

    /// @dev `m` signed directly by its author.
    function _byAuthor(Move memory m) internal view returns (Auth memory) {
        return _signMove(_authorKey(m), m);
    }

    function _delegation(uint256 id, uint256 sessionPk, uint32 firstPly, uint32 lastPly)
        internal
        pure
        returns (Delegation memory)
    {
        return Delegation({gameId: id, sessionKey: vm.addr(sessionPk), firstPly: firstPly, lastPly: lastPly});
    }

    /// @dev An authorisation of `digest` by session key `sessionPk` under delegation `d`,
    /// the delegation signed by `playerPk`.
    function _bySession(uint256 playerPk, uint256 sessionPk, Delegation memory d, bytes32 digest)
        internal
        view
        returns (Auth memory)
    {
        return Auth({
            signature: _sig(sessionPk, digest),
            delegation: d,
            delegationSignature: _sig(playerPk, channel.digestOf(channel.hashDelegation(d)))
        });
    }

    function _resultDigest(Result memory r) internal view returns (bytes32) {
        return channel.digestOf(channel.hashResult(r));
    }

    function _resignationDigest(Resignation memory r) internal view returns (bytes32) {
        return channel.digestOf(channel.hashResignation(r));
    }

    /// @dev Settles game `id` with `result` signed directly by alice and bob.
    function _settle(uint256 id, uint8 result) internal {
        Result memory r = Result({gameId: id, ply: 0, result: result});
        bytes32 d = _resultDigest(r);
        channel.settle(r, _direct(_sig(ALICE_PK, d)), _direct(_sig(BOB_PK, d)));
    }

    /// @dev External entry to `_settle`, so a revert can be expected of the whole settlement.
    function settleExternal(uint256 id, uint8 result) external {
        _settle(id, result);
    }

    /// @dev External entry to `_register`, so a revert can be expected of the whole registration.
    function registerExternal(uint256 i) external {
        _register(i);
    }

    /// @dev Registers `line[i - 1]`, `line[i]` (each signed directly by its author) with
    /// the referee's current on-chain position as `pos` knows it; absorbs the events.
    function _register(uint256 i) internal {
        Move memory q = line[i - 1];
        Move memory m = line[i];
        Auth memory qa = q.ply == 0 ? _direct("") : _byAuthor(q);
        Position storage p = pos[m.gameId];
        bytes32 inner = p.state.length == 0 ? bytes32(0) : keccak256(abi.encodePacked(p.state, p.history));
        Auth memory ma = _byAuthor(m);
        address registrant = vm.addr(_authorKey(m));
        uint256 clock = p.clock;
        vm.recordLogs();
        vm.prank(registrant);
        channel.register(q, qa, m, ma, inner, clock);
        _absorb(vm.getRecordedLogs());
    }

    /// @dev The referee's events, `PositionRegistered` included: it sets the position (as an
    /// indexer would).
    function _absorb(Vm.Log[] memory logs) internal virtual override {
        super._absorb(logs);
        for (uint256 i; i < logs.length; ++i) {
            Vm.Log memory l = logs[i];
            if (l.emitter != address(ref) || l.topics[0] != ChessReferee.PositionRegistered.selector) continue;
            (, bytes memory state, bytes32 history, uint256 clock) =
                abi.decode(l.data, (uint32, bytes, bytes32, uint256));
            uint256 id = uint256(l.topics[1]);
            pos[id] = Position(state, history, clock);
            delete keysSince[id];
            keysSince[id].push(ChessRules.repetitionKey(state));
        }
    }

    function _credit(address who) internal view returns (uint256) {
        return ref.credits(who, address(0));
    }

    function _err(bytes4 selector, uint256 arg) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(selector, arg);
    }
}
