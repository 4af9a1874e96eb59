// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Test} from "./utils/Test.sol";
import {ChessReferee} from "../src/ChessReferee.sol";
import {ChessRefereeAnnex} from "../src/ChessRefereeAnnex.sol";
import {ChessChannelAnnex} from "../src/ChessChannelAnnex.sol";
import {IChessReferee, IChessRefereeTypes} from "../src/IChessReferee.sol";
import {ChessChannelBlueprint} from "../src/ChessChannelBlueprint.sol";
import {ChessTournamentBlueprint} from "../src/ChessTournamentBlueprint.sol";
import {IChessChannel, IChessChannelTypes} from "../src/IChessChannel.sol";
import {FrozenPosition} from "../src/ChessCourt.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {ClockWord} from "../src/ClockWord.sol";
import {Commitment} from "../src/Commitment.sol";
import {ChannelHash, Move, Delegation, Resignation, Result, DrawOffer, Receipt, Auth} from "../src/ChannelHash.sol";
import {SignatureCheck} from "../src/SignatureCheck.sol";

/// @notice The worked examples of docs/CHANNEL.md section 12 (tests/fixtures/channel-examples.json,
/// protocol v2, written by the Rust side) recomputed with this repository's contracts: the
/// domain separator, every type string and type hash, every hashStruct and digest (through
/// the channel's views), every signature's signer and the key its authorisation names, every
/// transition code, and the refusals. The referee is deployed at the fixture's address, so its
/// channel is the fixture's verifying contract and verifies the fixture's signatures on-chain.
contract ChessChannelFixtureTest is Test {
    string internal json;
    IChessReferee internal ref;
    IChessChannel internal channel;
    uint256 internal gameId;
    /// @dev The latest registration (clock 0: none): an overtake's `frozen` position.
    FrozenPosition internal frozen;

    function setUp() public {
        json = vm.readFile(string.concat(vm.projectRoot(), "/tests/fixtures/channel-examples.json"));
        vm.chainId(vm.parseJsonUint(json, ".domain.chainId"));
        vm.warp(vm.parseJsonUint(json, ".game.joinedAt"));
        // the blueprint and the annexes from this test contract, so that the deployer's nonce 0 is the referee's
        address blueprint = address(new ChessChannelBlueprint());
        address annex = address(new ChessRefereeAnnex());
        address channelAnnex = address(new ChessChannelAnnex());
        address tournamentBlueprint = address(new ChessTournamentBlueprint());
        address deployer = vm.parseJsonAddress(json, ".domain.deployer");
        vm.setNonce(deployer, 0);
        vm.prank(deployer);
        ref = IChessReferee(address(new ChessReferee(blueprint, annex, channelAnnex, tournamentBlueprint)));
        assertEq(address(ref), vm.parseJsonAddress(json, ".domain.referee"), "referee address");
        channel = ref.channel();
        gameId = vm.parseJsonUint(json, ".game.gameId");
        _openGame();
    }

    /// @dev Games 1..gameId-1 open, then the fixture's game created by white and joined by
    /// black at `game.joinedAt`.
    function _openGame() internal {
        for (uint256 i = 1; i < gameId; ++i) {
            ref.createGame(address(0), true, address(0), 0, 300, 0, 0, "");
        }
        address white = _player("white");
        address black = _player("black");
        vm.deal(white, 10 ether);
        vm.deal(black, 10 ether);
        bytes memory start = vm.parseJsonBytes(json, ".game.startState");
        uint32 initialTime = uint32(vm.parseJsonUint(json, ".game.initialTime"));
        uint32 increment = uint32(vm.parseJsonUint(json, ".game.increment"));
        uint32 window = uint32(vm.parseJsonUint(json, ".game.responseWindow"));
        vm.prank(white);
        uint256 id = ref.createChannelGame{value: 1 ether}(
            black, true, address(0), 1 ether, initialTime, increment, 0, start, window
        );
        assertEq(id, gameId);
        bytes32 terms = ref.getGame(id).terms;
        vm.prank(black);
        ref.joinGame{value: 1 ether}(id, terms);
    }

    // ---------------------------------------------------------------- reading

    function _at(string memory p, string memory key) internal pure returns (string memory) {
        return string.concat(p, key);
    }

    function _uint(string memory p, string memory key) internal view returns (uint256) {
        return vm.parseJsonUint(json, _at(p, key));
    }

    function _b32(string memory p, string memory key) internal view returns (bytes32) {
        return vm.parseJsonBytes32(json, _at(p, key));
    }

    function _str(string memory p, string memory key) internal view returns (string memory) {
        return vm.parseJsonString(json, _at(p, key));
    }

    /// @dev `game.white` or `game.black`.
    function _player(string memory side) internal view returns (address) {
        return vm.parseJsonAddress(json, string.concat(".game.", side));
    }

    function _moveAt(uint256 i) internal pure returns (string memory) {
        return string.concat(".moves[", vm.toString(i), "]");
    }

    /// @dev The predecessor of `moves[i]`: the start move or `moves[i-1]`.
    function _previousAt(uint256 i) internal pure returns (string memory) {
        return i == 0 ? ".start" : _moveAt(i - 1);
    }

    function _move(string memory p) internal view returns (Move memory m) {
        m.gameId = _uint(p, ".gameId");
        m.ply = uint32(_uint(p, ".ply"));
        m.mv = uint24(_uint(p, ".mv"));
        m.state = vm.parseJsonBytes(json, _at(p, ".state"));
        m.history = _b32(p, ".history");
        m.whiteTime = uint32(_uint(p, ".whiteTime"));
        m.blackTime = uint32(_uint(p, ".blackTime"));
        m.timestamp = uint64(_uint(p, ".timestamp"));
        m.previous = _b32(p, ".previous");
    }

    function _delegation(uint256 i) internal view returns (Delegation memory d) {
        string memory p = string.concat(".delegations[", vm.toString(i), "]");
        d.gameId = _uint(p, ".gameId");
        d.sessionKey = vm.parseJsonAddress(json, _at(p, ".sessionKey"));
        d.firstPly = uint32(_uint(p, ".firstPly"));
        d.lastPly = uint32(_uint(p, ".lastPly"));
        d.expires = uint64(_uint(p, ".expires"));
    }

    function _receipt(string memory p) internal view returns (Receipt memory r) {
        r.gameId = _uint(p, ".gameId");
        r.ply = uint32(_uint(p, ".ply"));
        r.position = _b32(p, ".position");
        r.seenAt = uint64(_uint(p, ".seenAt"));
    }

    function _resignation(string memory p) internal view returns (Resignation memory r) {
        r.gameId = _uint(p, ".gameId");
        r.ply = uint32(_uint(p, ".ply"));
        r.position = _b32(p, ".position");
    }

    function _result(string memory p) internal view returns (Result memory r) {
        r.gameId = _uint(p, ".gameId");
        r.ply = uint32(_uint(p, ".ply"));
        r.position = _b32(p, ".position");
        r.result = uint8(_uint(p, ".result"));
    }

    function _drawOffer(string memory p) internal view returns (DrawOffer memory o) {
        o.gameId = _uint(p, ".gameId");
        o.ply = uint32(_uint(p, ".ply"));
        o.position = _b32(p, ".position");
    }

    /// @dev The authorisation at `p` (its signature and delegation index, -1 for none).
    function _auth(string memory p) internal view returns (Auth memory a) {
        a.signature = vm.parseJsonBytes(json, _at(p, ".signature"));
        int256 k = vm.parseJsonInt(json, _at(p, ".delegation"));
        if (k >= 0) {
            a.delegation = _delegation(uint256(k));
            a.delegationSignature =
                vm.parseJsonBytes(json, string.concat(".delegations[", vm.toString(uint256(k)), "].signature"));
        }
    }

    function _count(string memory array) internal view returns (uint256 n) {
        while (vm.keyExistsJson(json, string.concat(array, "[", vm.toString(n), "]"))) ++n;
    }

    function _separator() internal view returns (bytes32) {
        return ChannelHash.domainSeparator(
            vm.parseJsonUint(json, ".domain.chainId"), vm.parseJsonAddress(json, ".domain.verifyingContract")
        );
    }

    /// @notice SignatureCheck.recover over memory (it reads calldata).
    function recover(bytes32 digest, bytes calldata signature) external pure returns (address) {
        return SignatureCheck.recover(digest, signature);
    }

    // ---------------------------------------------------------------- checking

    /// @dev `h` is the fixture's `p.hash`; its digest, recomputed and by the channel's
    /// `digestOf`, is `p.digest`. Returns the digest.
    function _checkHash(string memory p, bytes32 h) internal view returns (bytes32 d) {
        assertEq(h, _b32(p, ".hash"), _at(p, ".hash"));
        d = ChannelHash.digest(_separator(), h);
        assertEq(d, _b32(p, ".digest"), _at(p, ".digest"));
        assertEq(channel.digestOf(h), d, _at(p, ": digestOf"));
    }

    /// @dev The signature at `p` (of digest `d`) recovers to `p.signer`, which is the key its
    /// authorisation names for player `side`: the player's own address, or the session key of
    /// a delegation of that player.
    function _checkSigner(string memory p, bytes32 d, string memory side) internal view {
        address signer = vm.parseJsonAddress(json, _at(p, ".signer"));
        assertEq(this.recover(d, vm.parseJsonBytes(json, _at(p, ".signature"))), signer, _at(p, ".signer"));
        int256 k = vm.parseJsonInt(json, _at(p, ".delegation"));
        if (k < 0) {
            assertEq(signer, _player(side), _at(p, ": the player signs directly"));
        } else {
            string memory q = string.concat(".delegations[", vm.toString(uint256(k)), "]");
            assertEq(_str(q, ".player"), side, _at(p, ": a delegation of the player"));
            assertEq(signer, vm.parseJsonAddress(json, _at(q, ".sessionKey")), _at(p, ": the delegated key"));
        }
    }

    /// @dev Checks the move at `p`: hashStruct, digest, author, status and (if signed) its signer.
    function _checkMove(string memory p) internal view returns (Move memory m) {
        m = _move(p);
        bytes32 d = _checkHash(p, channel.hashMove(m));
        string memory author = m.state[ChessRules.CURRENT_PLAYER] == 0x01 ? "black" : "white";
        assertEq(_str(p, ".author"), author, _at(p, ".author"));
        uint256 status = _uint(p, ".status");
        // 255: the fixture's mark for a state that is not valid (ENCODING.md section 7), whose
        // section 8 status is undefined
        if (status == 255) assertGt(ChessRules.validateState(m.state), 0, _at(p, ": invalid state"));
        else assertEq(ChessRules.status(m.state), status, _at(p, ".status"));
        if (vm.parseJsonBytes(json, _at(p, ".signature")).length != 0) _checkSigner(p, d, author);
    }

    /// @dev The hash of the move of ply `ply` of the transcript (the start move for 0).
    function _positionOf(uint256 ply) internal view returns (bytes32) {
        return _b32(ply == 0 ? ".start" : _moveAt(ply - 1), ".hash");
    }

    /// @dev The clock word of a registration of `last` from `from` in this block
    /// (section 7.3): frozen to the window's end, the author keeps its signed time plus the
    /// grace, the side to move is charged from `from` to the window's end.
    function _expectedClock(Move memory last, uint256 from) internal view returns (uint256 clock) {
        uint256 windowEnd = block.timestamp + vm.parseJsonUint(json, ".game.responseWindow");
        bool authorWhite = last.state[ChessRules.CURRENT_PLAYER] != 0x01;
        uint256 toMove = (authorWhite ? last.blackTime : last.whiteTime) + ClockWord.GRACE_PERIOD;
        uint256 authorBudget = (authorWhite ? last.whiteTime : last.blackTime) + ClockWord.GRACE_PERIOD;
        // An overtake of a frozen registration: what the wall clock left (section 7.3).
        uint256 frozenClock = frozen.clock;
        if (frozenClock != 0 && block.timestamp < ClockWord.lastTimestamp(frozenClock)) {
            uint256 plies = last.ply - ClockWord.ply(frozenClock);
            uint256 increment = vm.parseJsonUint(json, ".game.increment");
            bool odd = plies % 2 == 1;
            uint256 cap = ClockWord.budget(frozenClock, odd ? !authorWhite : authorWhite) + (plies / 2) * increment;
            if (odd && toMove > cap) toMove = cap;
            if (!odd && authorBudget > cap) authorBudget = cap;
            cap = ClockWord.replyDeadline(frozenClock) - from + increment;
            if (plies == 1 && authorBudget > cap) authorBudget = cap;
        }
        uint256 charge = windowEnd - from;
        uint256 toMoveBudget = charge < toMove ? toMove - charge : 0;
        clock = ClockWord.registered(
            windowEnd,
            authorWhite ? authorBudget : toMoveBudget,
            authorWhite ? toMoveBudget : authorBudget,
            vm.parseJsonUint(json, ".game.increment"),
            last.ply,
            ref.channelGame(gameId).firstMoveWindow,
            false
        );
        uint256 st = ChessRules.status(last.state);
        if (st != 0) clock = ClockWord.withPendingStatus(clock, st);
        clock = ClockWord.withReplyDeadline(clock, from + toMove);
    }

    /// @dev The game's commitment is `last`'s position with `clock`, at ply `last.ply`.
    function _assertRegistered(Move memory last, uint256 clock) internal view {
        assertEq(ref.channelGame(gameId).registeredPly, last.ply, "registeredPly");
        assertEq(ref.channelGame(gameId).windowEnd, ClockWord.lastTimestamp(clock), "windowEnd");
        assertEq(
            ref.getGame(gameId).commitment,
            Commitment.seal(Commitment.inner(last.state, last.history), clock),
            "the registered position and clock"
        );
        assertEq(ref.getGame(gameId).phase, 2, "no registration ends the game");
    }

    /// @dev Registers `moves[i]` after its predecessor with its receipt, at the receipt's
    /// `seenAt`, sent by `caller`; returns the clock word the registration must store.
    function _registerWithReceipt(uint256 i, address caller) internal returns (uint256 clock) {
        string memory p = _moveAt(i);
        string memory q = _previousAt(i);
        Receipt memory r = _receipt(_at(p, ".receipt"));
        vm.warp(r.seenAt);
        clock = _expectedClock(_move(p), r.seenAt);
        vm.prank(caller);
        channel.register(_move(q), _auth(q), _move(p), _auth(p), r, _auth(_at(p, ".receipt")), frozen);
        Move memory last = _move(p);
        frozen = FrozenPosition({inner: Commitment.inner(last.state, last.history), clock: clock});
    }

    /// @dev Registers `lapsedResult`'s later ply 3 (`moves[2]`) with its receipt: frozen.
    function _freezePly3() internal {
        _registerWithReceipt(2, _player("white"));
        assertEq(ref.channelGame(gameId).registeredPly, 3);
    }

    // ---------------------------------------------------------------- domain and types

    function test_Fixture_DomainSeparator() public view {
        bytes32 expected = vm.parseJsonBytes32(json, ".domain.separator");
        assertEq(_separator(), expected, "recomputed");
        assertEq(channel.domainSeparator(), expected, "the deployed channel's");
        assertEq(address(channel), vm.parseJsonAddress(json, ".domain.verifyingContract"));
        assertEq(keccak256(bytes(vm.parseJsonString(json, ".domain.name"))), ChannelHash.NAME_HASH);
        assertEq(keccak256(bytes(vm.parseJsonString(json, ".domain.version"))), ChannelHash.VERSION_HASH);
        assertEq(ChannelHash.VERSION_HASH, keccak256("2"), "protocol v2");
    }

    function test_Fixture_TypeStringsAndHashes() public view {
        string[6] memory names = ["Move", "Delegation", "Resignation", "Result", "DrawOffer", "Receipt"];
        bytes32[6] memory ours = [
            ChannelHash.MOVE_TYPEHASH,
            ChannelHash.DELEGATION_TYPEHASH,
            ChannelHash.RESIGNATION_TYPEHASH,
            ChannelHash.RESULT_TYPEHASH,
            ChannelHash.DRAW_OFFER_TYPEHASH,
            ChannelHash.RECEIPT_TYPEHASH
        ];
        for (uint256 i; i < 6; ++i) {
            string memory p = string.concat(".types.", names[i]);
            bytes32 typeHash = _b32(p, ".typeHash");
            assertEq(keccak256(bytes(_str(p, ".type"))), typeHash, names[i]);
            assertEq(ours[i], typeHash, names[i]);
        }
    }

    // ---------------------------------------------------------------- messages

    function test_Fixture_StartMoveIsTheGamesStart() public view {
        Move memory s = _checkMove(".start");
        assertEq(s.ply, 0);
        assertEq(s.timestamp, 0, "the start move has no signed time");
        assertEq(s.previous, bytes32(0));
        assertEq(s.whiteTime, vm.parseJsonUint(json, ".game.initialTime"));
        assertEq(s.blackTime, vm.parseJsonUint(json, ".game.initialTime"));
        assertEq(s.state, vm.parseJsonBytes(json, ".game.startState"));
        assertEq(s.history, vm.parseJsonBytes32(json, ".game.startHistory"));
        assertEq(keccak256(abi.encodePacked(s.state, s.history)), ref.channelStart(gameId));
    }

    function test_Fixture_EveryMoveHashDigestAndSigner() public view {
        uint256 n = _count(".moves");
        assertEq(n, 4, "fool's mate");
        for (uint256 i; i < n; ++i) {
            Move memory m = _checkMove(_moveAt(i));
            assertEq(m.ply, i + 1, "ply");
            assertEq(m.previous, _b32(_previousAt(i), ".hash"), "chained");
        }
    }

    function test_Fixture_EveryMoveIsAValidSuccessor() public view {
        uint256 inc = vm.parseJsonUint(json, ".game.increment");
        for (uint256 i; i < _count(".moves"); ++i) {
            (uint256 code, uint256 rule) = channel.transitionCode(gameId, inc, _move(_previousAt(i)), _move(_moveAt(i)));
            assertEq(code, 0, _moveAt(i));
            assertEq(rule, 0, _moveAt(i));
        }
    }

    /// @notice Each move's receipt: of that move, by the side to move after it, timed between
    /// the move's stamp and stamp + STAMP_TOLERANCE (section 4.6).
    function test_Fixture_EveryReceiptHashDigestAndSigner() public view {
        for (uint256 i; i < _count(".moves"); ++i) {
            string memory p = _at(_moveAt(i), ".receipt");
            Receipt memory r = _receipt(p);
            Move memory m = _move(_moveAt(i));
            assertEq(r.gameId, m.gameId, p);
            assertEq(r.ply, m.ply, p);
            assertEq(r.position, _b32(_moveAt(i), ".hash"), p);
            assertGe(r.seenAt, m.timestamp, p);
            assertLe(r.seenAt, m.timestamp + channel.STAMP_TOLERANCE(), p);
            bytes32 d = _checkHash(p, channel.hashReceipt(r));
            _checkSigner(p, d, m.state[ChessRules.CURRENT_PLAYER] == 0x01 ? "white" : "black");
        }
    }

    function test_Fixture_EveryDelegationHashDigestAndSigner() public view {
        uint256 n = _count(".delegations");
        assertEq(n, 4);
        for (uint256 i; i < n; ++i) {
            string memory p = string.concat(".delegations[", vm.toString(i), "]");
            Delegation memory del = _delegation(i);
            assertEq(del.gameId, gameId, p);
            bytes32 d = _checkHash(p, channel.hashDelegation(del));
            address signer = vm.parseJsonAddress(json, _at(p, ".signer"));
            assertEq(this.recover(d, vm.parseJsonBytes(json, _at(p, ".signature"))), signer, p);
            assertEq(signer, _player(_str(p, ".player")), "signed by the player's own address");
        }
    }

    function test_Fixture_DrawOfferHashDigestAndSigner() public view {
        DrawOffer memory o = _drawOffer(".drawOffer");
        assertEq(o.position, _positionOf(o.ply), "names the position of its ply");
        bytes32 d = _checkHash(".drawOffer", channel.hashDrawOffer(o));
        _checkSigner(".drawOffer", d, _str(".drawOffer", ".by"));
    }

    function test_Fixture_ResignationHashDigestAndSigner() public view {
        Resignation memory r = _resignation(".resignation");
        assertEq(r.ply, 4, "in the final position");
        assertEq(r.position, _positionOf(r.ply), "names the position of its ply");
        bytes32 d = _checkHash(".resignation", channel.hashResignation(r));
        _checkSigner(".resignation", d, _str(".resignation", ".by"));
    }

    function test_Fixture_ResultHashDigestAndSigners() public view {
        Result memory r = _result(".result");
        assertEq(r.position, _positionOf(r.ply), "names the position of its ply");
        bytes32 d = _checkHash(".result", channel.hashResult(r));
        _checkSigner(".result.white", d, "white");
        _checkSigner(".result.black", d, "black");
    }

    function test_Fixture_LapsedResultHashDigestAndSigners() public view {
        string memory p = ".negative.lapsedResult.result";
        Result memory r = _result(p);
        assertEq(r.position, _positionOf(r.ply), "names the position of its ply");
        assertGt(vm.parseJsonUint(json, ".negative.lapsedResult.latestPly"), r.ply, "play went on");
        bytes32 d = _checkHash(p, channel.hashResult(r));
        _checkSigner(_at(p, ".white"), d, "white");
        _checkSigner(_at(p, ".black"), d, "black");
    }

    function test_Fixture_ExpiredKeyResignationHashDigestAndSigner() public view {
        string memory p = ".negative.expiredKey.resignation";
        Resignation memory r = _resignation(p);
        bytes32 d = _checkHash(p, channel.hashResignation(r));
        _checkSigner(p, d, _str(p, ".by"));
        Delegation memory del = _delegation(uint256(vm.parseJsonInt(json, _at(p, ".delegation"))));
        uint256 judgedAt = vm.parseJsonUint(json, ".negative.expiredKey.now");
        assertEq(judgedAt, vm.parseJsonUint(json, ".now"));
        assertGt(judgedAt, del.expires, "judged after the key expired");
        assertEq(del.expires, _move(_moveAt(3)).timestamp + 1, "one second after the last move's stamp");
    }

    // ---------------------------------------------------------------- on the deployed channel

    function test_Fixture_ResultSettlesOnChain() public {
        vm.warp(vm.parseJsonUint(json, ".now"));
        channel.settle(_result(".result"), _auth(".result.white"), _auth(".result.black"));
        IChessRefereeTypes.GameInfo memory g = ref.getGame(gameId);
        assertEq(g.result, _uint(".result", ".result"));
        assertEq(g.reason, 8);
    }

    function test_Fixture_ResignationSettlesOnChain() public {
        vm.warp(vm.parseJsonUint(json, ".now"));
        bool white = keccak256(bytes(_str(".resignation", ".by"))) == keccak256("white");
        channel.resignBySignature(_resignation(".resignation"), _auth(".resignation"), white);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(gameId);
        assertEq(g.result, white ? 2 : 1);
        assertEq(g.reason, 5);
    }

    /// @notice Every pair of the transcript registers with the side to move's receipt, whose
    /// clock then runs from `seenAt` (section 7.3); the mate at ply 4 registers as pending.
    function test_Fixture_EveryPairRegistersWithItsReceipt() public {
        for (uint256 i; i < _count(".moves"); ++i) {
            uint256 snap = vm.snapshotState();
            string memory p = _moveAt(i);
            bool authorWhite = keccak256(bytes(_str(p, ".author"))) == keccak256("white");
            uint256 clock = _registerWithReceipt(i, _player(authorWhite ? "white" : "black"));
            _assertRegistered(_move(p), clock);
            assertEq(ClockWord.pendingStatus(clock), _uint(p, ".status"), "pending outcome");
            vm.revertToState(snap);
        }
    }

    /// @notice Every pair registers without a receipt while its last move is fresh
    /// (stamp + STAMP_TOLERANCE), the side to move's clock running from its stamp but from
    /// no earlier than CLOCK_TOLERANCE before the block (section 7.3).
    function test_Fixture_EveryPairRegistersFreshWithoutReceipt() public {
        for (uint256 i; i < _count(".moves"); ++i) {
            uint256 snap = vm.snapshotState();
            string memory p = _moveAt(i);
            string memory q = _previousAt(i);
            Move memory last = _move(p);
            vm.warp(last.timestamp + channel.STAMP_TOLERANCE());
            Receipt memory none;
            Auth memory noAuth;
            vm.prank(_player(i % 2 == 0 ? "black" : "white"));
            channel.register(_move(q), _auth(q), last, _auth(p), none, noAuth, frozen);
            // shown STAMP_TOLERANCE after its stamp: charged from CLOCK_TOLERANCE before that
            _assertRegistered(last, _expectedClock(last, block.timestamp - channel.CLOCK_TOLERANCE()));
            vm.revertToState(snap);
        }
    }

    /// @notice The whole transcript reaches the chain pair by pair, each registration (by a
    /// watchtower after the first) overtaking the last; the registered mate is finished by
    /// anyone once its window is over (black wins by checkmate).
    function test_Fixture_TranscriptOvertakesPairByPairAndTheMateFinishes() public {
        uint256 n = _count(".moves");
        _registerWithReceipt(0, _player("white"));
        uint256 clock;
        for (uint256 i = 1; i < n; ++i) {
            clock = _registerWithReceipt(i, address(0x70E1));
        }
        Move memory mate = _move(_moveAt(n - 1));
        _assertRegistered(mate, clock);
        vm.warp(ClockWord.lastTimestamp(clock));
        ref.finishRegistered(gameId, mate.state, mate.history, clock);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(gameId);
        assertEq(g.result, 2, "black mated white");
        assertEq(g.reason, 1, "checkmate");
    }

    function test_Fixture_EquivocationProvesOnChain() public {
        string memory a = ".negative.equivocation.a";
        string memory b = ".negative.equivocation.b";
        _checkMove(a);
        _checkMove(b);
        channel.proveEquivocation(_move(a), _auth(a), _move(b), _auth(b));
        IChessRefereeTypes.GameInfo memory g = ref.getGame(gameId);
        assertEq(g.result, keccak256(bytes(_str(a, ".author"))) == keccak256("white") ? 2 : 1);
        assertEq(g.reason, 12);
    }

    // ---------------------------------------------------------------- negative examples

    function test_Fixture_HighSTwinRefused() public view {
        bytes32 d = vm.parseJsonBytes32(json, ".negative.highS.digest");
        bytes memory sig = vm.parseJsonBytes(json, ".negative.highS.signature");
        assertEq(this.recover(d, sig), address(0), "refused");
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly ("memory-safe") {
            r := mload(add(sig, 32))
            s := mload(add(sig, 64))
            v := byte(0, mload(add(sig, 96)))
        }
        assertEq(
            ecrecover(d, v, r, s), vm.parseJsonAddress(json, ".negative.highS.signer"), "plain ecrecover accepts it"
        );
    }

    function test_Fixture_WrongSignerRefusedOnChain() public {
        string memory p = ".negative.wrongSigner";
        Move memory m = _move(p);
        bytes32 d = _checkHash(p, channel.hashMove(m));
        address signer = vm.parseJsonAddress(json, _at(p, ".signer"));
        assertEq(this.recover(d, vm.parseJsonBytes(json, _at(p, ".signature"))), signer);
        address author = _player(_str(p, ".author"));
        assertTrue(signer != author, "signed by the other player");
        string memory q = _previousAt(m.ply - 1);
        vm.warp(m.timestamp);
        Receipt memory none;
        Auth memory noAuth;
        vm.prank(_player("white"));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, author));
        channel.register(_move(q), _auth(q), m, _auth(p), none, noAuth, frozen);
    }

    function test_Fixture_OtherChainSeparatorAndDigest() public {
        uint256 other = vm.parseJsonUint(json, ".negative.otherChain.chainId");
        address vc = vm.parseJsonAddress(json, ".domain.verifyingContract");
        bytes32 sep = ChannelHash.domainSeparator(other, vc);
        assertEq(sep, vm.parseJsonBytes32(json, ".negative.otherChain.separator"));
        bytes32 h = channel.hashMove(_move(_moveAt(0)));
        assertEq(ChannelHash.digest(sep, h), vm.parseJsonBytes32(json, ".negative.otherChain.digest"));
        vm.chainId(other);
        assertEq(channel.domainSeparator(), sep, "the deployed channel on that chain");
        assertEq(channel.digestOf(h), vm.parseJsonBytes32(json, ".negative.otherChain.digest"));
    }

    function test_Fixture_EveryTransitionCode() public view {
        uint256 n = _count(".negative.transitions");
        assertEq(n, 11);
        uint256 inc = vm.parseJsonUint(json, ".game.increment");
        for (uint256 i; i < n; ++i) {
            string memory p = string.concat(".negative.transitions[", vm.toString(i), "]");
            Move memory q = _move(_at(p, ".previous"));
            _checkHash(_at(p, ".previous"), channel.hashMove(q));
            Move memory m = _checkMove(_at(p, ".move"));
            (uint256 code, uint256 rule) = channel.transitionCode(gameId, inc, q, m);
            string memory name = _str(p, ".name");
            assertEq(code, _uint(p, ".code"), name);
            assertEq(rule, _uint(p, ".ruleCode"), name);
        }
    }

    /// @notice Every signed invalid successor ends the game on-chain (reason 13, its author
    /// loses), but code 3: a move that does not name the given predecessor proves nothing.
    function test_Fixture_EveryInvalidTransitionProvesOnChain() public {
        for (uint256 i; i < _count(".negative.transitions"); ++i) {
            uint256 snap = vm.snapshotState();
            string memory p = string.concat(".negative.transitions[", vm.toString(i), "]");
            string memory b = _at(p, ".move");
            if (_uint(p, ".code") == 3) vm.expectRevert(IChessChannelTypes.NotIllegal.selector);
            channel.proveIllegalMove(_move(_at(p, ".previous")), _move(b), _auth(b));
            if (_uint(p, ".code") != 3) {
                IChessRefereeTypes.GameInfo memory g = ref.getGame(gameId);
                assertEq(g.result, keccak256(bytes(_str(b, ".author"))) == keccak256("white") ? 2 : 1, _str(p, ".name"));
                assertEq(g.reason, 13, _str(p, ".name"));
            }
            vm.revertToState(snap);
        }
    }

    /// @notice Section 9: the contract cannot see a later move nobody registered, so the
    /// lapsed result still settles while the game is off-chain (honest clients and verifiers
    /// refuse it; a player who signed it alone registers instead of playing on).
    function test_Fixture_LapsedResultSettlesWhileNoLaterPlyIsRegistered() public {
        string memory p = ".negative.lapsedResult.result";
        channel.settle(_result(p), _auth(_at(p, ".white")), _auth(_at(p, ".black")));
        assertEq(ref.getGame(gameId).reason, 8);
    }

    function test_Fixture_LapsedResultRefusedOnceALaterPlyIsRegistered() public {
        _freezePly3();
        string memory p = ".negative.lapsedResult.result";
        Result memory r = _result(p);
        Auth memory w = _auth(_at(p, ".white"));
        Auth memory bl = _auth(_at(p, ".black"));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.LapsedAgreement.selector, 3));
        channel.settle(r, w, bl);
    }

    function test_Fixture_LapsedResultRefusedOnceOnChainPlayIsLive() public {
        _freezePly3();
        vm.warp(ref.channelGame(gameId).windowEnd);
        string memory p = ".negative.lapsedResult.result";
        Result memory r = _result(p);
        Auth memory w = _auth(_at(p, ".white"));
        Auth memory bl = _auth(_at(p, ".black"));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.AgreementsClosed.selector, gameId));
        channel.settle(r, w, bl);
    }

    /// @notice Section 7: `settle` checks the lapse before the signatures (here both swapped).
    function test_Fixture_LapseCheckedBeforeSignatures() public {
        _freezePly3();
        string memory p = ".negative.lapsedResult.result";
        Result memory r = _result(p);
        Auth memory w = _auth(_at(p, ".white"));
        Auth memory bl = _auth(_at(p, ".black"));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.LapsedAgreement.selector, 3));
        channel.settle(r, bl, w);
    }

    function test_Fixture_ExpiredKeyResignationRefused() public {
        string memory p = ".negative.expiredKey.resignation";
        vm.warp(vm.parseJsonUint(json, ".negative.expiredKey.now"));
        Resignation memory r = _resignation(p);
        Auth memory a = _auth(p);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, _player("white")));
        channel.resignBySignature(r, a, true);
    }

    /// @notice The same resignation counted while the key was in force: it is refused for its
    /// expiry only.
    function test_Fixture_ExpiredKeyResignationCountedUntilExpiry() public {
        string memory p = ".negative.expiredKey.resignation";
        Auth memory a = _auth(p);
        vm.warp(a.delegation.expires);
        channel.resignBySignature(_resignation(p), a, true);
        IChessRefereeTypes.GameInfo memory g = ref.getGame(gameId);
        assertEq(g.result, 2);
        assertEq(g.reason, 5);
    }
}
