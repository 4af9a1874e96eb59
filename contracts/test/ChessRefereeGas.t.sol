// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Vm} from "./utils/Test.sol";
import {RefereeBase, VmExtra} from "./ChessRefereeBase.t.sol";
import {RealGames} from "./ChessRefereeGames.t.sol";
import {IChessReferee} from "../src/IChessReferee.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {MockERC20} from "./mocks/MockERC20.sol";
import {FullStorageReferee, TwoSlotReferee} from "./mocks/AlternativeReferees.sol";

/// @dev A contract whose one state-changing call tells isolated from shared-transaction runs.
contract IsolationProbe {
    uint256 internal pokes = 1; // non-zero: a poke costs ~3,000 gas inside a shared transaction

    function poke() external {
        ++pokes;
    }
}

/// @notice Whole-transaction gas measurement (the method below), shared by the gas tests.
/// @dev Method. Under `forge test --isolate` every top-level call is its own transaction and
/// `vm.lastCallGas().gasTotalUsed` is the receipt's gasUsed: 21,000 + calldata (EIP-7623
/// floor aware) + execution with cold storage - refund. Without isolation the test makes the
/// referee's storage cold (`vm.cool`) before each call and computes the same figure from the
/// call frame: max(21,000 + 4*tokens + frame - min(refund, total/5), 21,000 + 10*tokens),
/// tokens = zero bytes + 4 * non-zero bytes of the calldata. Both modes give the same numbers
/// for calls that touch only the referee; calls into a token show 2,500 less without
/// isolation (the token account stays warm). The documented figures use `--isolate`.
abstract contract RefereeGasBase is RefereeBase {
    event log_named_uint(string key, uint256 val);
    event log_string(string val);

    bool internal isolated;
    /// @dev Contracts a transaction touches besides the referee (tokens), cooled too.
    address[] internal alsoCool;
    /// @dev Logs of the last `_txTo`.
    Vm.Log[] internal lastLogs;

    function setUp() public virtual override {
        super.setUp();
        IsolationProbe probe = new IsolationProbe();
        probe.poke();
        isolated = vm.lastCallGas().gasTotalUsed >= 21_000;
    }

    // ---------------------------------------------------------------- measuring

    /// @dev Sends `data` to the referee as `from` and returns the whole transaction's gas.
    function _tx(address from, uint256 value, bytes memory data) internal returns (uint256 gas) {
        return _txTo(address(ref), from, value, data);
    }

    /// @dev Sends `data` to `target` as `from` and returns the whole transaction's gas.
    function _txTo(address target, address from, uint256 value, bytes memory data) internal returns (uint256 gas) {
        if (!isolated) {
            VmExtra(address(vm)).cool(target);
            for (uint256 i; i < alsoCool.length; ++i) {
                VmExtra(address(vm)).cool(alsoCool[i]);
            }
        }
        vm.recordLogs();
        vm.prank(from);
        (bool ok, bytes memory ret) = target.call{value: value}(data);
        Vm.Gas memory g = vm.lastCallGas();
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(ret, 32), mload(ret))
            }
        }
        Vm.Log[] memory logs = vm.getRecordedLogs();
        delete lastLogs;
        for (uint256 i; i < logs.length; ++i) {
            lastLogs.push(logs[i]);
        }
        _absorb(logs);
        if (isolated) return g.gasTotalUsed;
        uint256 tokens;
        for (uint256 i; i < data.length; ++i) {
            tokens += data[i] == 0 ? 1 : 4;
        }
        uint256 total = 21_000 + 4 * tokens + g.gasTotalUsed;
        uint256 refund = g.gasRefunded > 0 ? uint256(int256(g.gasRefunded)) : 0;
        if (refund > total / 5) refund = total / 5;
        gas = total - refund;
        uint256 floor = 21_000 + 10 * tokens;
        if (gas < floor) gas = floor;
    }
}

/// @notice Whole-transaction gas of every referee operation, and the move bars of issue 3
/// (median <= 55,000, p90 <= 65,000, max <= 150,000 over full real games), Prague schedule.
contract ChessRefereeGasTest is RefereeGasBase {
    uint256[] internal moveGas;

    function _moveTx(uint256 id, uint24 mv) internal returns (uint256) {
        Position memory p = pos[id];
        return _tx(_mover(id), 0, abi.encodeCall(IChessReferee.move, (id, p.state, p.history, p.clock, mv)));
    }

    function _createTx(address creator, address opponent, uint256 stake, bytes memory start)
        internal
        returns (uint256 id, uint256 gas)
    {
        id = ref.nextGameId();
        gas = _tx(
            creator,
            stake,
            abi.encodeCall(IChessReferee.createGame, (opponent, true, address(0), stake, INITIAL, INCREMENT, 0, start))
        );
    }

    function _joinTx(uint256 id, address who, uint256 stake) internal returns (uint256) {
        return _tx(who, stake, abi.encodeCall(IChessReferee.joinGame, (id, ref.getGame(id).terms)));
    }

    /// @dev Plays a whole real game, one transaction per move, recording each move's gas.
    function _playReal(string memory ucis) internal returns (uint256 id) {
        (id,) = _createTx(alice, bob, STAKE, "");
        _joinTx(id, bob, STAKE);
        uint24[] memory mvs = _uciList(ucis);
        for (uint256 i; i < mvs.length; ++i) {
            vm.warp(block.timestamp + 3);
            moveGas.push(_moveTx(id, mvs[i]));
        }
    }

    /// @dev Sorts `a` in place (Shell sort, Ciura's gaps: an insertion sort of 641 figures
    /// cost this contract's tests about 15 million gas each, near forge's per-test limit).
    function _sorted(uint256[] memory a) internal pure returns (uint256[] memory) {
        uint16[8] memory gaps = [701, 301, 132, 57, 23, 10, 4, 1];
        for (uint256 g; g < 8; ++g) {
            uint256 gap = gaps[g];
            for (uint256 i = gap; i < a.length; ++i) {
                uint256 v = a[i];
                uint256 j = i;
                while (j >= gap && a[j - gap] > v) {
                    a[j] = a[j - gap];
                    j -= gap;
                }
                a[j] = v;
            }
        }
        return a;
    }

    // ---------------------------------------------------------------- the move bars

    /// @notice Every move of six real games (620 plies: mate, stalemate, en passant,
    /// castling both ways, queen and knight promotion) as its own transaction.
    function test_Gas_MoveTransactionBarsOverRealGames() public {
        _playAllReal();

        emit log_string(isolated ? "method: isolated transactions (receipt gasUsed)" : "method: cold frame + intrinsic");
        (uint256 n, uint256 median, uint256 p90, uint256 max) = _report("ChessReferee", moveGas);
        assertEq(n, 641);
        assertLe(median, 55_000, "median move tx gas");
        assertLe(p90, 65_000, "p90 move tx gas");
        assertLe(max, 150_000, "max move tx gas");
    }

    /// @dev Logs and returns count, median, p90 (nearest rank) and max of `gas`.
    function _report(string memory what, uint256[] memory gas)
        internal
        returns (uint256 n, uint256 median, uint256 p90, uint256 max)
    {
        uint256[] memory s = _sorted(gas);
        n = s.length;
        median = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
        p90 = s[(n * 9 + 9) / 10 - 1];
        max = s[n - 1];
        uint256 sum;
        for (uint256 i; i < n; ++i) {
            sum += s[i];
        }
        emit log_string(what);
        emit log_named_uint("  moves", n);
        emit log_named_uint("  move tx gas min", s[0]);
        emit log_named_uint("  move tx gas median", median);
        emit log_named_uint("  move tx gas mean", sum / n);
        emit log_named_uint("  move tx gas p90", p90);
        emit log_named_uint("  move tx gas max", max);
    }

    function _allRealGames() internal pure returns (string[6] memory) {
        return [
            RealGames.caruanaPichot2017(),
            RealGames.mvlCaruana2019(),
            RealGames.kosteniukGlavina2023(),
            RealGames.caruanaMvl2019(),
            RealGames.nakamuraMvl2018(),
            RealGames.engineThreefold()
        ];
    }

    /// @notice The storage layouts ChessReferee did not choose, on the same 641 moves:
    /// A keeps the whole position in storage, B keeps (state, history) committed in one
    /// slot and the clock in a second. Both lose to the one-slot commitment; the test
    /// pins that ordering.
    function test_Gas_AlternativeLayoutsLose() public {
        _playAllReal();
        (,, uint256 oneSlotP90,) = _report("chosen: one-slot commitment (IChessReferee)", moveGas);
        uint256 oneSlotMedian = _sorted(moveGas)[moveGas.length / 2];

        FullStorageReferee full = new FullStorageReferee();
        TwoSlotReferee two = new TwoSlotReferee();
        string[6] memory games = _allRealGames();
        uint256[] memory fullGas = new uint256[](641);
        uint256[] memory twoGas = new uint256[](641);
        uint256 k;
        for (uint256 gi; gi < 6; ++gi) {
            full.start(gi, alice, bob, INITIAL, INCREMENT);
            two.start(gi, alice, bob, INITIAL, INCREMENT);
            bytes memory state = ChessRules.initialState();
            bytes32 history = keccak256(abi.encode(bytes32(0), ChessRules.repetitionKey(state)));
            uint24[] memory mvs = _uciList(games[gi]);
            for (uint256 i; i < mvs.length; ++i) {
                vm.warp(block.timestamp + 3);
                address mover = uint8(state[56]) == 1 ? alice : bob;
                fullGas[k] = _txTo(address(full), mover, 0, abi.encodeCall(FullStorageReferee.move, (gi, mvs[i])));
                twoGas[k] =
                    _txTo(address(two), mover, 0, abi.encodeCall(TwoSlotReferee.move, (gi, state, history, mvs[i])));
                Vm.Log[] memory logs = lastLogs;
                (,,, history,,) =
                    abi.decode(logs[logs.length - 1].data, (uint24, uint32, uint8, bytes32, uint256, bytes));
                state = ChessRules.play(state, mvs[i]);
                ++k;
            }
        }
        (, uint256 fullMedian, uint256 fullP90,) = _report("A: whole position in storage", fullGas);
        (, uint256 twoMedian, uint256 twoP90,) = _report("B: commitment slot + clock slot", twoGas);
        assertLt(oneSlotMedian, twoMedian);
        assertLt(twoMedian, fullMedian);
        assertLt(oneSlotP90, twoP90);
        assertLt(twoP90, fullP90);
    }

    function _playAllReal() internal {
        string[6] memory games = _allRealGames();
        for (uint256 i; i < 6; ++i) {
            _playReal(games[i]);
        }
    }

    /// @notice Peer bug: a referee that replays the game grows past 1,000,000 gas by move
    /// 50. Here a move only checks the position it is given: the same four knight moves
    /// cost the same at plies 1-4 and at plies 141-144 (only calldata bytes of the ply
    /// count, clock and history differ).
    function test_Gas_MoveCostDoesNotGrowWithGameLength() public {
        (uint256 id,) = _createTx(alice, bob, STAKE, "");
        _joinTx(id, bob, STAKE);
        uint24[] memory cycle = _uciList("g1f3 g8f6 f3g1 f6g8");
        uint256[4] memory early;
        uint256[4] memory late;
        for (uint256 i; i < 144; ++i) {
            vm.warp(block.timestamp + 1);
            uint256 gas = _moveTx(id, cycle[i % 4]);
            if (i < 4) early[i] = gas;
            if (i >= 140) late[i - 140] = gas;
        }
        assertEq(_phase(id), PHASE_RUNNING);
        for (uint256 i; i < 4; ++i) {
            emit log_named_uint("early", early[i]);
            emit log_named_uint("late", late[i]);
            uint256 diff = late[i] > early[i] ? late[i] - early[i] : early[i] - late[i];
            assertLe(diff, 300, "move gas independent of game length");
        }
    }

    /// @notice The maximum bar where it is tightest: game-ending checkmates whose mate
    /// detection must refute the most moves (16 hardest real mates), with stakes, so the
    /// winner's payout is credited inside the mating transaction.
    function test_Gas_HardestRealMatesUnderMaxBar() public {
        (string[16] memory fens, string[16] memory mates) = RealGames.hardMates();
        uint256 worst;
        for (uint256 i; i < 16; ++i) {
            (uint256 id,) = _createTx(alice, bob, STAKE, _fen(fens[i]));
            _joinTx(id, bob, STAKE);
            vm.warp(block.timestamp + 3);
            uint256 gas = _moveTx(id, _uci(mates[i]));
            (uint8 result, uint8 reason) = _result(id);
            assertEq(reason, 1, "checkmate");
            assertEq(result, uint8(pos[id].state[56]) == 1 ? BLACK_WINS : WHITE_WINS);
            if (gas > worst) worst = gas;
        }
        emit log_named_uint("hardest mate tx gas", worst);
        assertLe(worst, 150_000, "max move tx gas");
    }

    // ---------------------------------------------------------------- other operations

    function test_Gas_CreateJoinStandardEth() public {
        (uint256 id, uint256 create) = _createTx(alice, bob, STAKE, "");
        uint256 join = _joinTx(id, bob, STAKE);
        emit log_named_uint("createGame (ETH, standard start)", create);
        emit log_named_uint("joinGame (ETH)", join);
        assertEq(_phase(id), PHASE_RUNNING);
    }

    function test_Gas_CreateCustomStart() public {
        (uint256 id, uint256 create) = _createTx(alice, bob, STAKE, _fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"));
        uint256 join = _joinTx(id, bob, STAKE);
        emit log_named_uint("createGame (ETH, custom start)", create);
        emit log_named_uint("joinGame (custom start)", join);
        assertEq(_phase(id), PHASE_RUNNING);
    }

    function test_Gas_CreateJoinToken() public {
        MockERC20 token = new MockERC20();
        alsoCool.push(address(token));
        token.mint(alice, STAKE);
        token.mint(bob, STAKE);
        vm.prank(alice);
        token.approve(address(ref), STAKE);
        vm.prank(bob);
        token.approve(address(ref), STAKE);
        uint256 id = ref.nextGameId();
        uint256 create = _tx(
            alice,
            0,
            abi.encodeCall(IChessReferee.createGame, (bob, true, address(token), STAKE, INITIAL, INCREMENT, 0, ""))
        );
        uint256 join = _joinTx(id, bob, 0);
        emit log_named_uint("createGame (ERC-20)", create);
        emit log_named_uint("joinGame (ERC-20)", join);
        assertEq(token.balanceOf(address(ref)), 2 * STAKE);
    }

    function test_Gas_CancelAndWithdraw() public {
        (uint256 id,) = _createTx(alice, bob, STAKE, "");
        uint256 cancel = _tx(alice, 0, abi.encodeCall(IChessReferee.cancelGame, (id)));
        uint256 withdraw = _tx(alice, 0, abi.encodeCall(IChessReferee.withdraw, (address(0))));
        emit log_named_uint("cancelGame", cancel);
        emit log_named_uint("withdraw (ETH)", withdraw);
        assertEq(address(ref).balance, 0);
    }

    function test_Gas_Resign() public {
        (uint256 id,) = _createTx(alice, bob, STAKE, "");
        _joinTx(id, bob, STAKE);
        uint256 resign = _tx(alice, 0, abi.encodeCall(IChessReferee.resign, (id)));
        emit log_named_uint("resign", resign);
        assertEq(ref.credits(bob, address(0)), 2 * STAKE);
    }

    function test_Gas_OfferAndAcceptDraw() public {
        (uint256 id,) = _createTx(alice, bob, STAKE, "");
        _joinTx(id, bob, STAKE);
        _moveTx(id, _uci("e2e4"));
        Position memory p = pos[id];
        uint256 offer = _tx(alice, 0, abi.encodeCall(IChessReferee.offerDraw, (id, p.state, p.history, p.clock)));
        p = pos[id];
        uint256 accept = _tx(bob, 0, abi.encodeCall(IChessReferee.acceptDraw, (id, p.state, p.history, p.clock)));
        emit log_named_uint("offerDraw", offer);
        emit log_named_uint("acceptDraw", accept);
        (uint8 result,) = _result(id);
        assertEq(result, DRAW);
    }

    function test_Gas_ClaimTimeout() public {
        (uint256 id,) = _createTx(alice, bob, STAKE, "");
        _joinTx(id, bob, STAKE);
        _moveTx(id, _uci("e2e4"));
        _moveTx(id, _uci("e7e5"));
        vm.warp(block.timestamp + 1 days);
        Position memory p = pos[id];
        uint256 claim = _tx(bob, 0, abi.encodeCall(IChessReferee.claimTimeout, (id, p.state, p.history, p.clock)));
        emit log_named_uint("claimTimeout (win)", claim);
        (uint8 result,) = _result(id);
        assertEq(result, BLACK_WINS);
    }

    /// @notice The real fifty-move finish: Nakamura - Vachier-Lagrave's last move makes
    /// the halfmove clock 100; black claims.
    function test_Gas_ClaimDrawFiftyMovesRealGame() public {
        uint256 id = _playReal(RealGames.nakamuraMvl2018());
        Position memory p = pos[id];
        uint256 claim = _tx(
            _mover(id), 0, abi.encodeCall(IChessReferee.claimDraw, (id, p.state, p.history, p.clock, new bytes32[](0)))
        );
        emit log_named_uint("claimDraw (fifty moves)", claim);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, DRAW);
        assertEq(reason, 9);
    }

    /// @notice The real threefold finish of an engine game: the player to move claims with
    /// the repetition keys since the last capture or pawn move.
    function test_Gas_ClaimDrawThreefoldRealGame() public {
        uint256 id = _playReal(RealGames.engineThreefold());
        Position memory p = pos[id];
        bytes32[] memory keys = _keys(id);
        uint256 claim =
            _tx(_mover(id), 0, abi.encodeCall(IChessReferee.claimDraw, (id, p.state, p.history, p.clock, keys)));
        emit log_named_uint("witness keys", keys.length);
        emit log_named_uint("claimDraw (threefold)", claim);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, DRAW);
        assertEq(reason, 10);
    }

    /// @notice Longest threefold witness a claim ever needs: with a halfmove clock of 100 or
    /// more the fifty-move rule applies without keys, so a witness has at most 100 keys.
    /// Here: 98 keys (97 quiet plies since the start), the last position seen 25 times.
    function test_Gas_ClaimDrawThreefoldLongWitness() public {
        (uint256 id,) = _createTx(alice, bob, 0, _fen("4k3/8/8/8/8/8/8/R3K2R w - - 0 1"));
        _joinTx(id, bob, 0);
        string memory ucis = "h1h2";
        for (uint256 i; i < 24; ++i) {
            ucis = string.concat(ucis, " e8d8 a1a2 d8e8 a2a1");
        }
        uint24[] memory mvs = _uciList(ucis);
        for (uint256 i; i < mvs.length; ++i) {
            vm.warp(block.timestamp + 1);
            _moveTx(id, mvs[i]);
        }
        Position memory p = pos[id];
        bytes32[] memory keys = _keys(id);
        assertEq(keys.length, 98);
        uint256 claim = _tx(bob, 0, abi.encodeCall(IChessReferee.claimDraw, (id, p.state, p.history, p.clock, keys)));
        emit log_named_uint("claimDraw (threefold, 98 keys)", claim);
        (, uint8 reason) = _result(id);
        assertEq(reason, 10);
    }

    function test_Gas_WithdrawToken() public {
        MockERC20 token = new MockERC20();
        alsoCool.push(address(token));
        token.mint(alice, STAKE);
        vm.prank(alice);
        token.approve(address(ref), STAKE);
        uint256 id = ref.nextGameId();
        vm.prank(alice);
        ref.createGame(bob, true, address(token), STAKE, INITIAL, INCREMENT, 0, "");
        vm.prank(alice);
        ref.cancelGame(id);
        uint256 withdraw = _tx(alice, 0, abi.encodeCall(IChessReferee.withdraw, (address(token))));
        emit log_named_uint("withdraw (ERC-20)", withdraw);
        assertEq(token.balanceOf(alice), STAKE);
    }
}
