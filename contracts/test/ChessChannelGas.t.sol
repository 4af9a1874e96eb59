// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Vm} from "./utils/Test.sol";
import {RefereeBase} from "./ChessRefereeBase.t.sol";
import {RefereeGasBase} from "./ChessRefereeGas.t.sol";
import {ChannelBase} from "./ChessChannelBase.t.sol";
import {IChessReferee} from "../src/IChessReferee.sol";
import {IChessChannel} from "../src/IChessChannel.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {Move, Delegation, Resignation, Result, Receipt, Auth} from "../src/ChannelHash.sol";
import {NamedSessionKeys} from "./mocks/NamedSessionKeys.sol";

/// @notice Whole-transaction gas of the channel paths and the bars of issue 16 (protocol v2):
/// a whole game off-chain (create + join + settle, players whose credit slot exists)
/// <= 250,000 whether the result is signed directly or by both session keys, and
/// independent of its length; every registration <= 120,000 (session keys and receipts
/// included); each proof <= 120,000; `finishRegistered` <= 60,000. Same method as
/// ChessRefereeGasTest (`forge test --isolate` for the documented figures).
contract ChessChannelGasTest is ChannelBase, RefereeGasBase {
    function setUp() public override(ChannelBase, RefereeGasBase) {
        super.setUp();
    }

    function _absorb(Vm.Log[] memory logs) internal override(ChannelBase, RefereeBase) {
        ChannelBase._absorb(logs);
    }

    /// @dev A running channel game, created and joined by transactions; returns their gas.
    function _channelGameTx() internal returns (uint256 id, uint256 create, uint256 join) {
        id = ref.nextGameId();
        create = _tx(
            alice,
            STAKE,
            abi.encodeCall(
                IChessReferee.createChannelGame, (bob, true, address(0), STAKE, INITIAL, INCREMENT, 0, "", WINDOW)
            )
        );
        join = _tx(bob, STAKE, abi.encodeCall(IChessReferee.joinGame, (id, ref.getGame(id).terms)));
        _resetLine(id, ChessRules.initialState());
    }

    /// @dev Makes both players' ETH credit slots exist (as in the README's per-operation table).
    function _warmCredits() internal {
        uint256 id = _startChannelGame();
        _settle(id, DRAW);
    }

    function _settleTx(uint256 id, uint32 ply, bool sessionKeys) internal returns (uint256) {
        Result memory r = Result({gameId: id, ply: ply, position: keccak256(abi.encode(id, ply)), result: WHITE_WINS});
        bytes32 d = _resultDigest(r);
        Auth memory w;
        Auth memory b;
        if (sessionKeys) {
            w = _bySession(ALICE_PK, SESSION1_PK, _delegation(id, SESSION1_PK, 1, type(uint32).max), d);
            b = _bySession(BOB_PK, SESSION2_PK, _delegation(id, SESSION2_PK, 1, type(uint32).max), d);
        } else {
            w = _direct(_sig(ALICE_PK, d));
            b = _direct(_sig(BOB_PK, d));
        }
        return _txTo(address(channel), carol, 0, abi.encodeCall(IChessChannel.settle, (r, w, b)));
    }

    function test_Gas_ChannelGameCreateJoinSettleUnderBar() public {
        _warmCredits();
        (uint256 id, uint256 create, uint256 join) = _channelGameTx();
        uint256 settle = _settleTx(id, 80, false);
        emit log_named_uint("createChannelGame (ETH, credit slot exists)", create);
        emit log_named_uint("joinGame (channel, credit slot exists)", join);
        emit log_named_uint("settle (both sign directly)", settle);
        emit log_named_uint("whole game off-chain: create + join + settle", create + join + settle);
        assertLe(create + join + settle, 250_000, "issue 16 bar");
        assertEq(_credit(alice), STAKE + 2 * STAKE);
    }

    function test_Gas_ChannelGameCreateJoinSettleBySessionKeysUnderBar() public {
        _warmCredits();
        (uint256 id, uint256 create, uint256 join) = _channelGameTx();
        uint256 settle = _settleTx(id, 80, true);
        emit log_named_uint("settle (both by session keys)", settle);
        emit log_named_uint("whole game off-chain, session keys: create + join + settle", create + join + settle);
        assertLe(create + join + settle, 250_000, "issue 16 bar");
        assertEq(_credit(alice), STAKE + 2 * STAKE);
    }

    function test_Gas_SettleDoesNotGrowWithGameLength() public {
        _warmCredits();
        (uint256 a,,) = _channelGameTx();
        uint256 short = _settleTx(a, 2, false);
        (uint256 b,,) = _channelGameTx();
        uint256 long = _settleTx(b, 200, false);
        emit log_named_uint("settle after 2 plies", short);
        emit log_named_uint("settle after 200 plies", long);
        // The messages have the same size whatever the ply; only the count of zero bytes in
        // the calldata varies (4 gas each below 16 for a non-zero byte).
        assertLe(short > long ? short - long : long - short, 200);
    }

    /// @notice The two session-key designs of issue 10: a delegation signed off-chain and
    /// verified at settlement (kept) vs. the key named on-chain at create and join.
    function test_Gas_SessionKeyDesigns() public {
        _warmCredits();
        (uint256 a,,) = _channelGameTx();
        uint256 direct = _settleTx(a, 80, false);
        (uint256 b,,) = _channelGameTx();
        uint256 delegated = _settleTx(b, 80, true);
        uint256 delegationExtra = delegated - direct;

        NamedSessionKeys named = new NamedSessionKeys();
        alsoCool.push(address(named));
        uint256 none = _txTo(address(named), alice, 0, abi.encodeCall(NamedSessionKeys.nameKey, (b, address(0))));
        uint256 withKey =
            _txTo(address(named), alice, 0, abi.encodeCall(NamedSessionKeys.nameKey, (b, vm.addr(SESSION1_PK))));
        uint256 perPlayer = withKey - none;
        uint256 readNone = _txTo(address(named), carol, 0, abi.encodeCall(NamedSessionKeys.keyOf, (b + 1, alice)));
        uint256 read = _txTo(address(named), carol, 0, abi.encodeCall(NamedSessionKeys.keyOf, (b, alice)));
        uint256 namedExtra = 2 * perPlayer + 2 * (read > readNone ? read - readNone : 0);

        emit log_named_uint("settle, both direct", direct);
        emit log_named_uint("settle, both by delegated session keys", delegated);
        emit log_named_uint("delegation design: extra per game (settlement only)", delegationExtra);
        emit log_named_uint("named-key design: extra create/join per player", perPlayer);
        emit log_named_uint("named-key design: extra per game (create+join, settlement reads)", namedExtra);
        assertLt(delegationExtra, namedExtra, "the delegation is the cheaper cooperative path");
    }

    function test_Gas_ResignBySignature() public {
        _warmCredits();
        (uint256 id,,) = _channelGameTx();
        Resignation memory r = Resignation({gameId: id, ply: 30, position: keccak256("position of ply 30")});
        Auth memory a = _direct(_sig(BOB_PK, _resignationDigest(r)));
        uint256 gas = _txTo(address(channel), alice, 0, abi.encodeCall(IChessChannel.resignBySignature, (r, a, false)));
        emit log_named_uint("resignBySignature", gas);
    }

    /// @dev The opening of a real game (Ruy Lopez, 20 plies) signed off-chain.
    function _realOpening(uint256 id) internal {
        id;
        _extend("e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6 e1g1 f8e7 f1e1 b7b5 a4b3 d7d6 c2c3 e8g8 h2h3 c6a5 b3c2 c7c5");
    }

    /// @dev Registers `line[i - 1]`, `line[i]` (both signed directly, no receipt), sent by
    /// `from`; returns the transaction's gas.
    function _registerTx(uint256 i, address from) internal returns (uint256) {
        Move memory q = line[i - 1];
        Move memory m = line[i];
        return _txTo(
            address(channel),
            from,
            0,
            abi.encodeCall(
                IChessChannel.register, (q, _byAuthor(q), m, _byAuthor(m), _noReceipt(), _direct(""), _frozen(m))
            )
        );
    }

    /// @dev Session keys: SESSION1 for alice (white), SESSION2 for bob (black), all plies.
    function _sessionAuth(uint256 id, bool white, bytes32 digest) internal view returns (Auth memory) {
        return white
            ? _bySession(ALICE_PK, SESSION1_PK, _delegation(id, SESSION1_PK, 1, type(uint32).max), digest)
            : _bySession(BOB_PK, SESSION2_PK, _delegation(id, SESSION2_PK, 1, type(uint32).max), digest);
    }

    /// @dev Registers `line[i - 1]`, `line[i]` with the side to move's receipt of `line[i]` at
    /// its stamp, `line[i]` and the receipt signed by session keys (`line[i - 1]` unsigned:
    /// the receipt vouches for it), sent by `from`; returns the transaction's gas.
    function _registerWithReceiptBySessionKeysTx(uint256 i, address from) internal returns (uint256) {
        Move memory q = line[i - 1];
        Move memory m = line[i];
        bool authorWhite = !ChessRules.whiteToMove(m.state);
        Receipt memory r = _receipt(m, m.timestamp);
        Auth memory ma = _sessionAuth(m.gameId, authorWhite, _moveDigest(m));
        Auth memory ra = _sessionAuth(m.gameId, !authorWhite, _receiptDigest(r));
        return _txTo(
            address(channel),
            from,
            0,
            abi.encodeCall(IChessChannel.register, (q, _direct(""), m, ma, r, ra, _frozen(m)))
        );
    }

    function test_Gas_RegisterUnderBar() public {
        (uint256 id,,) = _channelGameTx();
        _realOpening(id);
        uint256 first = _registerTx(19, alice);
        uint256 overtake = _registerTx(20, carol);
        emit log_named_uint("register (off-chain -> frozen, ply 19, direct, no receipt)", first);
        emit log_named_uint("register overtaking (ply 20, by a third party)", overtake);
        assertLe(first, 120_000, "issue 16 bar");
        assertLe(overtake, 120_000, "issue 16 bar");
        assertEq(_ply(id), 20);
    }

    /// @notice A registration whose two moves are signed by session keys (each delegation
    /// travels with its move), no receipt.
    function test_Gas_RegisterBySessionKeys() public {
        (uint256 id,,) = _channelGameTx();
        _realOpening(id);
        Move memory q = line[18];
        Move memory m = line[19];
        Auth memory qa = _sessionAuth(id, false, _moveDigest(q));
        Auth memory ma = _sessionAuth(id, true, _moveDigest(m));
        uint256 gas = _txTo(
            address(channel),
            vm.addr(_authorKey(m)),
            0,
            abi.encodeCall(IChessChannel.register, (q, qa, m, ma, _noReceipt(), _direct(""), _frozen(m)))
        );
        emit log_named_uint("register, both moves by session keys (ply 19)", gas);
        assertLe(gas, 120_000, "issue 16 bar");
    }

    /// @dev Registers `line[i - 1]`, `line[i]` with the side to move's receipt of `line[i]` at
    /// its stamp, both signed directly (`line[i - 1]` unsigned), sent by `from`.
    function _registerWithReceiptTx(uint256 i, address from) internal returns (uint256) {
        Move memory q = line[i - 1];
        Move memory m = line[i];
        (Receipt memory r, Auth memory ra) = _signedReceipt(m, m.timestamp);
        return _txTo(
            address(channel),
            from,
            0,
            abi.encodeCall(IChessChannel.register, (q, _direct(""), m, _byAuthor(m), r, ra, _frozen(m)))
        );
    }

    function test_Gas_RegisterWithReceiptUnderBar() public {
        (uint256 id,,) = _channelGameTx();
        _realOpening(id);
        vm.warp(line[20].timestamp + 1 hours); // stale stamps: only receipts register them
        uint256 first = _registerWithReceiptTx(19, alice);
        uint256 overtake = _registerWithReceiptTx(20, carol);
        emit log_named_uint("register with receipt, direct signatures (ply 19)", first);
        emit log_named_uint("register overtaking with receipt, direct signatures (ply 20, third party)", overtake);
        assertLe(first, 120_000, "issue 16 bar");
        assertLe(overtake, 120_000, "issue 16 bar");
        assertEq(_ply(id), 20);
    }

    /// @notice The v2 dispute path at its heaviest signatures: the move and the side to move's
    /// receipt each signed by a session key (two delegations checked), long after the move.
    function test_Gas_RegisterWithReceiptBySessionKeys() public {
        (uint256 id,,) = _channelGameTx();
        _realOpening(id);
        vm.warp(line[20].timestamp + 1 hours); // stale stamps: only receipts register them
        uint256 first = _registerWithReceiptBySessionKeysTx(19, alice);
        uint256 overtake = _registerWithReceiptBySessionKeysTx(20, carol);
        emit log_named_uint("register with receipt, move + receipt by session keys (ply 19)", first);
        emit log_named_uint("register overtaking with receipt by session keys (ply 20, third party)", overtake);
        assertLe(first, 120_000, "issue 16 bar");
        assertLe(overtake, 120_000, "issue 16 bar");
        assertEq(_ply(id), 20);
    }

    /// @notice Registering a decided position: the section 8 status of a mate (a search of
    /// every reply) is the dearest part.
    function test_Gas_RegisterDecidedPositionUnderBar() public {
        (uint256 id,,) = _channelGameTx();
        _extend("f2f3 e7e5 g2g4 d8h4");
        uint256 register = _registerTx(4, bob);
        emit log_named_uint("register fool's mate (frozen, pending outcome)", register);
        assertEq(ref.getGame(id).phase, PHASE_RUNNING, "a registration never ends the game");
        assertLe(register, 120_000, "issue 16 bar");
    }

    /// @notice The dearest registration of a decided bare-king endgame found (issue 27: at most
    /// 150,000 in every form): a bishop takes the last knight and leaves a bare king in
    /// mid-board beside two bishops of one colour, insufficient material counted on both
    /// boards (the one before holds only minor pieces), both moves signed by session keys.
    function test_Gas_RegisterBareKingEndgameUnderBar() public {
        bytes memory start = _fen("B7/8/8/1B2n3/8/4k3/8/3K4 w - - 0 1");
        uint256 id = _createChannel(alice, bob, start);
        _join(id, bob, STAKE);
        _resetLine(id, start);
        _extend("d1c1 e5c4 b5c4");
        Move memory q = line[2];
        Move memory m = line[3];
        Auth memory qa = _sessionAuth(id, false, _moveDigest(q));
        Auth memory ma = _sessionAuth(id, true, _moveDigest(m));
        uint256 gas = _txTo(
            address(channel),
            alice,
            0,
            abi.encodeCall(IChessChannel.register, (q, qa, m, ma, _noReceipt(), _direct(""), _frozen(m)))
        );
        emit log_named_uint("register a bare king, insufficient material (session keys, ply 3)", gas);
        assertLe(gas, 150_000, "issue 27 bar");
    }

    /// @notice An undecided bare king (issue 27): a queen's move leaves it one step of eight,
    /// tested last, both moves signed by session keys.
    function test_Gas_RegisterBareKingAgainstQueenUnderBar() public {
        bytes memory start = _fen("5Q2/8/8/4k3/8/8/3K4/8 w - - 0 1");
        uint256 id = _createChannel(alice, bob, start);
        _join(id, bob, STAKE);
        _resetLine(id, start);
        _extend("f8f7 e5e4 f7f6");
        Move memory q = line[2];
        Move memory m = line[3];
        Auth memory qa = _sessionAuth(id, false, _moveDigest(q));
        Auth memory ma = _sessionAuth(id, true, _moveDigest(m));
        uint256 gas = _txTo(
            address(channel),
            alice,
            0,
            abi.encodeCall(IChessChannel.register, (q, qa, m, ma, _noReceipt(), _direct(""), _frozen(m)))
        );
        emit log_named_uint("register a bare king against a queen, undecided (session keys, ply 3)", gas);
        assertLe(gas, 150_000, "issue 27 bar");
    }

    function test_Gas_FinishRegisteredUnderBar() public {
        _warmCredits();
        (uint256 id,,) = _channelGameTx();
        _extend("f2f3 e7e5 g2g4 d8h4");
        _register(4);
        Position memory p = pos[id];
        vm.warp(block.timestamp + WINDOW);
        uint256 finish =
            _tx(carol, 0, abi.encodeCall(IChessReferee.finishRegistered, (id, p.state, p.history, p.clock)));
        emit log_named_uint("finishRegistered (ends and pays, credit slot exists)", finish);
        assertLe(finish, 60_000, "issue 16 bar");
        (uint8 result,) = _result(id);
        assertEq(result, BLACK_WINS);
    }

    function test_Gas_ProofsUnderBar() public {
        _warmCredits();
        (uint256 a,,) = _channelGameTx();
        _realOpening(a);
        Move memory other = _next(line[19], "a8b8", 2);
        uint256 equivocation = _txTo(
            address(channel),
            alice,
            0,
            abi.encodeCall(IChessChannel.proveEquivocation, (line[20], _byAuthor(line[20]), other, _byAuthor(other)))
        );

        (uint256 b,,) = _channelGameTx();
        _realOpening(b);
        Move memory bad = _next(line[19], "d8e8", 2);
        bad.history = keccak256("not the chain"); // code 8: every check runs
        uint256 illegal8 = _txTo(
            address(channel), bob, 0, abi.encodeCall(IChessChannel.proveIllegalMove, (line[19], bad, _byAuthor(bad)))
        );

        (uint256 c,,) = _channelGameTx();
        _realOpening(c);
        bad = _next(line[19], "d8e8", 2);
        bad.mv = _uci("d8d4");
        uint256 illegal6 = _txTo(
            address(channel), bob, 0, abi.encodeCall(IChessChannel.proveIllegalMove, (line[19], bad, _byAuthor(bad)))
        );
        emit log_named_uint("proveEquivocation", equivocation);
        emit log_named_uint("proveIllegalMove (code 8, all checks)", illegal8);
        emit log_named_uint("proveIllegalMove (code 6)", illegal6);
        assertLe(equivocation, 120_000, "issue 16 bar");
        assertLe(illegal8, 120_000, "issue 16 bar");
        assertLe(illegal6, 120_000, "issue 16 bar");
    }
}
