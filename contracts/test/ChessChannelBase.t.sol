// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Vm} from "./utils/Test.sol";
import {RefereeBase} from "./ChessRefereeBase.t.sol";
import {IChessReferee, IChessRefereeTypes} from "../src/IChessReferee.sol";
import {IChessChannel} from "../src/IChessChannel.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {RepetitionChain} from "../src/RepetitionChain.sol";
import {Move, Delegation, Resignation, Result, Receipt, Auth} from "../src/ChannelHash.sol";
import {FrozenPosition} from "../src/ChessCourt.sol";
import {Commitment} from "../src/Commitment.sol";

/// @notice Shared harness of the channel tests: players with signing keys, channel games,
/// signed transcripts built move by move with the rules library, and authorisations.
abstract contract ChannelBase is RefereeBase {
    IChessChannel internal channel;

    uint256 internal constant ALICE_PK = 0xA11CE;
    uint256 internal constant BOB_PK = 0xB0B;
    uint256 internal constant CAROL_PK = 0xCA201;
    uint256 internal constant SESSION1_PK = 0x5E551;
    uint256 internal constant SESSION2_PK = 0x5E552;
    uint32 internal constant WINDOW = 600;
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
            timestamp: 0,
            previous: 0
        });
    }

    // ---------------------------------------------------------------- moves

    /// @dev The valid successor of `q` by `uci`, signed `spent` seconds after `q` (the first
    /// move at the block's time, uncharged: section 6 code 4).
    function _next(Move memory q, string memory uci, uint32 spent) internal view returns (Move memory) {
        return _successor(q, _uci(uci), spent);
    }

    /// @dev The valid successor of `q` by the packed move `mv`, `spent` seconds after `q`.
    function _successor(Move memory q, uint24 mv, uint32 spent) internal view returns (Move memory m) {
        bytes memory s = bytes.concat(q.state);
        bool white = ChessRules.whiteToMove(s);
        assertEq(ChessRules.applyMove(s, mv), 0, "test move must be legal");
        uint32 charged = q.ply == 0 ? 0 : spent;
        m = Move({
            gameId: q.gameId,
            ply: q.ply + 1,
            mv: mv,
            state: s,
            history: RepetitionChain.afterMove(s, q.history),
            whiteTime: white ? q.whiteTime - charged + INCREMENT : q.whiteTime,
            blackTime: white ? q.blackTime : q.blackTime - charged + INCREMENT,
            timestamp: q.ply == 0 ? uint64(block.timestamp) : q.timestamp + spent,
            previous: channel.hashMove(q)
        });
    }

    /// @dev Extends `line` by the space-separated UCI moves, 2 s each.
    function _extend(string memory ucis) internal {
        uint24[] memory mvs = _uciList(ucis);
        for (uint256 i; i < mvs.length; ++i) {
            line.push(_successor(line[line.length - 1], mvs[i], 2));
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
        return Delegation({
            gameId: id, sessionKey: vm.addr(sessionPk), firstPly: firstPly, lastPly: lastPly, expires: type(uint64).max
        });
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

    function _receiptDigest(Receipt memory r) internal view returns (bytes32) {
        return channel.digestOf(channel.hashReceipt(r));
    }

    /// @dev The `frozen` argument of a registration of `last`: its game's registered position
    /// as its `PositionRegistered` names it (what an overtake is charged from; ignored
    /// off-chain).
    function _frozen(Move memory last) internal view returns (FrozenPosition memory) {
        return _frozenWith(last.gameId, pos[last.gameId].clock);
    }

    /// @dev Game `id`'s registered position with `clock` as its clock word (a forged one, or
    /// its own).
    function _frozenWith(uint256 id, uint256 clock) internal view returns (FrozenPosition memory f) {
        f.clock = clock;
        if (pos[id].state.length == 128) f.inner = Commitment.inner(pos[id].state, pos[id].history);
    }

    /// @dev No receipt (section 7.3: `position == 0`).
    function _noReceipt() internal pure returns (Receipt memory r) {}

    /// @dev The receipt of `m` at `seenAt`.
    function _receipt(Move memory m, uint64 seenAt) internal view returns (Receipt memory) {
        return Receipt({gameId: m.gameId, ply: m.ply, position: channel.hashMove(m), seenAt: seenAt});
    }

    /// @dev The receipt of `m` at `seenAt`, signed directly by the side to move after it.
    function _signedReceipt(Move memory m, uint64 seenAt) internal view returns (Receipt memory r, Auth memory a) {
        r = _receipt(m, seenAt);
        a = _direct(_sig(ChessRules.whiteToMove(m.state) ? ALICE_PK : BOB_PK, _receiptDigest(r)));
    }

    /// @dev Settles game `id` with `result` signed directly by alice and bob.
    function _settle(uint256 id, uint8 result) internal {
        Result memory r = Result({gameId: id, ply: 0, position: 0, result: result});
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

    /// @dev Registers `line[i - 1]`, `line[i]` (each signed directly by its author, no
    /// receipt), sent by `line[i]`'s author; absorbs the events.
    function _register(uint256 i) internal {
        _registerBy(i, vm.addr(_authorKey(line[i])));
    }

    /// @dev `_register` sent by `registrant`.
    function _registerBy(uint256 i, address registrant) internal {
        Move memory q = line[i - 1];
        Move memory m = line[i];
        Auth memory qa = q.ply == 0 ? _direct("") : _byAuthor(q);
        Auth memory ma = _byAuthor(m);
        vm.recordLogs();
        vm.prank(registrant);
        channel.register(q, qa, m, ma, _noReceipt(), _direct(""), _frozen(m));
        _absorb(vm.getRecordedLogs());
    }

    /// @dev Registers `line[i - 1]`, `line[i]` with the side to move's receipt of `line[i]`
    /// at `seenAt` (no signature on `line[i - 1]`: the receipt vouches for it), sent by
    /// `registrant`; absorbs the events.
    function _registerWithReceipt(uint256 i, uint64 seenAt, address registrant) internal {
        Move memory q = line[i - 1];
        Move memory m = line[i];
        (Receipt memory r, Auth memory ra) = _signedReceipt(m, seenAt);
        Auth memory ma = _byAuthor(m);
        vm.recordLogs();
        vm.prank(registrant);
        channel.register(q, _direct(""), m, ma, r, ra, _frozen(m));
        _absorb(vm.getRecordedLogs());
    }

    /// @dev The referee's events, `PositionRegistered` included: it sets the position (as an
    /// indexer would).
    function _absorb(Vm.Log[] memory logs) internal virtual override {
        super._absorb(logs);
        for (uint256 i; i < logs.length; ++i) {
            Vm.Log memory l = logs[i];
            if (l.emitter != address(ref) || l.topics[0] != IChessRefereeTypes.PositionRegistered.selector) continue;
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
