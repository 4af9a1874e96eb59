// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {TournamentBase, VmBlocks} from "./ChessTournamentBase.t.sol";
import {IChessTournament, IChessTournamentTypes} from "../src/IChessTournament.sol";
import {IChessReferee} from "../src/IChessReferee.sol";
import {MockERC20} from "./mocks/MockERC20.sol";

/// @notice Whole-transaction gas of every tournament operation and of `hostGame` (the method
/// of `RefereeGasBase`; the documented figures use `forge test --isolate`), and the budget of
/// issue 31: no round costs a player more than one ordinary game plus 60,000 gas.
/// @dev In a round a player pays its moves (as in any game) and, in place of an ordinary
/// game's `createGame` or `joinGame`, one tournament call at most, by the clients' policy:
/// the white of a match calls its `start`, which records the results below it (a win needs
/// no `report`) and resolves their due lots; the black of a drawn game calls `report` to arm
/// its lot (its white paid the start). The final's result is recorded by the first `claim`.
/// Each of those calls is asserted within one ordinary `createGame` plus 60,000.
contract ChessTournamentGasTest is TournamentBase {
    uint256 internal constant BUDGET_OVER_A_GAME = 60_000;

    function setUp() public virtual override {
        super.setUp();
        // `start`, `report` and `claim` call the referee and run its annex: cold too.
        alsoCool.push(address(ref));
        alsoCool.push(ref.annex());
    }

    function _t(address from, uint256 value, bytes memory data) internal returns (uint256) {
        return _txTo(address(tour), from, value, data);
    }

    /// @dev An ordinary game's dearer half for one player: `createGame`, ETH, standard start.
    function _ordinaryCreate() internal returns (uint256 gas) {
        gas = _tx(
            alice,
            STAKE,
            abi.encodeCall(IChessReferee.createGame, (bob, true, address(0), STAKE, INITIAL, INCREMENT, 0, ""))
        );
    }

    function _startTx(uint256 e, uint256 m) internal returns (uint256 gas) {
        gas = _t(alice, 0, abi.encodeCall(IChessTournament.start, (e, m)));
        gameOf[e][m] = ref.nextGameId() - 1;
    }

    function _reportTx(uint256 e, uint256 m) internal returns (uint256) {
        return _t(alice, 0, abi.encodeCall(IChessTournament.report, (e, m)));
    }

    /// @dev A full event of `size`: creation, entries, draw, every start, report, claim, the
    /// fee and the withdrawals, each measured; asserts the round budget on every start.
    function _measureEvent(uint8 size) internal {
        uint256 ordinary = _ordinaryCreate();
        emit log_named_uint("ordinary game: createGame (ETH)", ordinary);
        uint256 e = _measureRegistration(size);
        _measureRounds(e, size, ordinary);
        _measureClaims(e, size);
    }

    function _measureRegistration(uint8 size) internal returns (uint256 e) {
        uint256 createGas = _t(
            organiser, 0, abi.encodeCall(IChessTournament.createEvent, (_terms(size, address(0), 500, _split(size))))
        );
        e = tour.nextEventId() - 1;
        uint256 firstEnter = _t(_player(0), FEE, abi.encodeCall(IChessTournament.enter, (e)));
        for (uint256 i = 1; i + 1 < size; ++i) {
            vm.prank(_player(i));
            tour.enter{value: FEE}(e);
        }
        uint256 fillingEnter = _t(_player(size - 1), FEE, abi.encodeCall(IChessTournament.enter, (e)));
        _passDraw(e, DRAW_HASH);
        uint256 drawGas = _t(alice, 0, abi.encodeCall(IChessTournament.draw, (e)));
        emit log_named_uint(string.concat("createEvent, size ", vm.toString(size)), createGas);
        emit log_named_uint("enter (ETH, first)", firstEnter);
        emit log_named_uint("enter (ETH, the filling entry)", fillingEnter);
        emit log_named_uint("draw", drawGas);
    }

    function _measureRounds(uint256 e, uint256 n, uint256 ordinary) internal {
        uint256 maxStart0;
        uint256 maxLater;
        uint256 maxReport;
        for (uint256 m; m < n - 1; ++m) {
            uint256 s = _startTx(e, m);
            if (m < n / 2) maxStart0 = s > maxStart0 ? s : maxStart0;
            else maxLater = s > maxLater ? s : maxLater;
            _decideGame(gameOf[e][m], true);
            uint256 r = _reportTx(e, m);
            maxReport = r > maxReport ? r : maxReport;
            assertLe(s, ordinary + BUDGET_OVER_A_GAME, "start within the round budget");
        }
        emit log_named_uint("start, round 0 (max)", maxStart0);
        emit log_named_uint("start, later round, children reported (max)", maxLater);
        emit log_named_uint("report, a win (max)", maxReport);
    }

    function _measureClaims(uint256 e, uint256 n) internal {
        uint256 maxClaim;
        for (uint256 i; i < n; ++i) {
            uint256 c = _t(_player(i), 0, abi.encodeCall(IChessTournament.claim, (e)));
            maxClaim = c > maxClaim ? c : maxClaim;
        }
        emit log_named_uint("claim (max over the entrants)", maxClaim);
        uint256 fee = _t(organiser, 0, abi.encodeCall(IChessTournament.claimFee, (e)));
        emit log_named_uint("claimFee", fee);
        address champion = tour.getMatch(e, n - 2).winner;
        uint256 w = _t(champion, 0, abi.encodeCall(IChessTournament.withdraw, (address(0))));
        emit log_named_uint("withdraw (ETH)", w);
    }

    function _split(uint8 size) internal pure returns (uint16[] memory) {
        return size == 8 ? _split8() : _winnerTakesAll();
    }

    function test_Gas_Event8() public {
        _measureEvent(8);
    }

    function test_Gas_Event64() public {
        _measureEvent(64);
    }

    /// @dev The round budget on the dearest paths (round 0 at 64 players is asserted by
    /// `test_Gas_Event64`, every start of a whole event by `_measureRounds`): a later round's
    /// start that records both children (board results) itself; one that resolves a child's
    /// lot and records the other; the report that arms a lot.
    function test_RoundGasBudget() public {
        uint256 ordinary = _ordinaryCreate();
        uint256 e = _ready(8);
        _start(e, 0);
        _start(e, 1);
        _decideGame(gameOf[e][0], true);
        _decideGame(gameOf[e][1], false);
        uint256 settlingTwo = _startTx(e, 4);
        emit log_named_uint("start, later round, settling 2 children", settlingTwo);
        assertLe(settlingTwo, ordinary + BUDGET_OVER_A_GAME, "start settling two children");

        _start(e, 2);
        _start(e, 3);
        _decideGame(gameOf[e][2], true);
        _drawGame(gameOf[e][3]);
        uint256 lot = _reportTx(e, 3);
        emit log_named_uint("report, a draw (arms the lot)", lot);
        vm.roll(block.number + 2);
        VmBlocks(address(vm)).setBlockhash(block.number - 1, keccak256("lot"));
        uint256 withLot = _startTx(e, 5);
        emit log_named_uint("start, later round, resolving a lot + settling a child", withLot);
        assertLe(withLot, ordinary + BUDGET_OVER_A_GAME, "start resolving a lot");
        // The drawn game's black arms the lot (its white paid that game's start).
        assertLe(lot, ordinary + BUDGET_OVER_A_GAME, "report of a draw");
    }

    function test_Gas_ResolveLot() public {
        uint256 e = _ready(8);
        _start(e, 0);
        _drawGame(gameOf[e][0]);
        tour.report(e, 0);
        vm.roll(block.number + 2);
        VmBlocks(address(vm)).setBlockhash(block.number - 1, keccak256("lot"));
        uint256 g = _t(alice, 0, abi.encodeCall(IChessTournament.resolveLot, (e, 0)));
        emit log_named_uint("resolveLot", g);
    }

    /// @dev `reportAbandoned`, and the walkover `start` it leads to (no game hosted).
    function test_Gas_ReportAbandonedAndWalkover() public {
        uint256 e = _ready(4);
        uint256 id = _start(e, 0);
        Position memory p = pos[id];
        vm.warp(block.timestamp + T_WINDOW + T_INITIAL + 15 + ABANDON_AFTER + 1);
        uint256 g = _t(
            alice, 0, abi.encodeCall(IChessTournament.reportAbandoned, (e, uint256(0), p.state, p.history, p.clock))
        );
        emit log_named_uint("reportAbandoned", g);
        _playMatch(e, 1, true);
        uint256 w = _t(alice, 0, abi.encodeCall(IChessTournament.start, (e, uint256(2))));
        emit log_named_uint("start, a walkover (the final)", w);
        assertEq(tour.getMatch(e, 2).gameId, 0);
    }

    function test_Gas_EnterAndWithdrawErc20() public {
        MockERC20 token = new MockERC20();
        alsoCool.push(address(token));
        uint256 e = _create(_terms(4, address(token), 0, _winnerTakesAll()));
        for (uint256 i; i < 4; ++i) {
            token.mint(_player(i), FEE);
            vm.prank(_player(i));
            token.approve(address(tour), FEE);
        }
        uint256 g = _t(_player(0), 0, abi.encodeCall(IChessTournament.enter, (e)));
        emit log_named_uint("enter (ERC-20)", g);
        vm.prank(_player(1));
        tour.enter(e);
        vm.warp(tour.getEvent(e).deadline + 1);
        vm.prank(_player(0));
        tour.claim(e);
        uint256 w = _t(_player(0), 0, abi.encodeCall(IChessTournament.withdraw, (address(token))));
        emit log_named_uint("withdraw (ERC-20)", w);
        uint256 r = _t(_player(1), 0, abi.encodeCall(IChessTournament.claim, (e)));
        emit log_named_uint("claim (refund, not full)", r);
    }

    /// @dev `hostGame` alone, as the tournament calls it (measured as its own transaction).
    function test_Gas_HostGame() public {
        uint256 g =
            _tx(address(tour), 0, abi.encodeCall(IChessReferee.hostGame, (alice, bob, T_INITIAL, 0, T_WINDOW, 0)));
        emit log_named_uint("hostGame (as its own transaction)", g);
        uint256 c =
            _tx(address(tour), 0, abi.encodeCall(IChessReferee.hostGame, (alice, bob, T_INITIAL, 0, T_WINDOW, 600)));
        emit log_named_uint("hostGame, channel game", c);
    }
}
