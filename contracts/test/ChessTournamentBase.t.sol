// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Vm} from "./utils/Test.sol";
import {RefereeGasBase} from "./ChessRefereeGas.t.sol";
import {IChessTournament, IChessTournamentTypes} from "../src/IChessTournament.sol";
import {IChessRefereeTypes} from "../src/IChessReferee.sol";

/// @dev Cheatcodes the shared test base does not declare.
interface VmBlocks {
    function setBlockhash(uint256 blockNumber, bytes32 blockHash) external;
}

/// @notice Shared harness for the tournament tests: the referee's own tournament, 64 funded
/// players, events with default terms, filling, drawing (with a chosen block hash), starting
/// matches (positions tracked from the referee's events), deciding games on the board, by an
/// agreed draw, and whole brackets.
abstract contract TournamentBase is RefereeGasBase {
    IChessTournament internal tour;
    address internal organiser = address(0x0C6A);

    uint96 internal constant FEE = 0.1 ether;
    uint32 internal constant T_INITIAL = 60;
    uint32 internal constant T_WINDOW = 120;
    uint32 internal constant ABANDON_AFTER = 1 hours;
    /// @dev The draw block's hash the tests use unless they choose another.
    bytes32 internal constant DRAW_HASH = keccak256("chessref");

    /// @dev Players' games by id: the last started game of each match.
    mapping(uint256 eventId => mapping(uint256 matchIndex => uint256)) internal gameOf;

    function setUp() public virtual override {
        super.setUp();
        tour = IChessTournament(ref.tournament());
        vm.roll(100);
        for (uint256 i; i < 64; ++i) {
            vm.deal(_player(i), 100 ether);
        }
        vm.deal(organiser, 1 ether);
    }

    function _player(uint256 i) internal pure returns (address) {
        return address(uint160(0x10000 + i));
    }

    /// @dev 8 players: 60/25/7.5 (winner, finalist, each semi-finalist), no round-0 prize.
    function _split8() internal pure returns (uint16[] memory s) {
        s = new uint16[](3);
        (s[0], s[1], s[2]) = (6_000, 2_500, 750);
    }

    function _terms(uint8 size, address token, uint16 feeBps, uint16[] memory split)
        internal
        view
        returns (IChessTournamentTypes.EventTerms memory t)
    {
        t = IChessTournamentTypes.EventTerms({
            token: token,
            fee: FEE,
            size: size,
            initialTime: T_INITIAL,
            increment: 0,
            firstMoveWindow: T_WINDOW,
            responseWindow: 0,
            deadline: uint40(block.timestamp + 1 days),
            feeBps: feeBps,
            split: split,
            abandonAfter: ABANDON_AFTER
        });
    }

    /// @dev The winner-takes-all split of a `size` event.
    function _winnerTakesAll() internal pure returns (uint16[] memory s) {
        s = new uint16[](1);
        s[0] = 10_000;
    }

    function _create(IChessTournamentTypes.EventTerms memory t) internal returns (uint256 e) {
        vm.prank(organiser);
        e = tour.createEvent(t);
    }

    /// @dev An ETH event of `size` with a 5% organiser fee (8: `_split8`; else winner takes all).
    function _createEth(uint8 size) internal returns (uint256) {
        return _create(_terms(size, address(0), 500, size == 8 ? _split8() : _winnerTakesAll()));
    }

    /// @dev Players 0..n-1 enter, in order.
    function _fill(uint256 e, uint256 n) internal {
        for (uint256 i; i < n; ++i) {
            vm.prank(_player(i));
            tour.enter{value: FEE}(e);
        }
    }

    /// @dev Moves past the draw block and gives it `hash`.
    function _passDraw(uint256 e, bytes32 hash) internal {
        uint256 b = tour.getEvent(e).drawBlock;
        if (block.number <= b) vm.roll(b + 1);
        VmBlocks(address(vm)).setBlockhash(b, hash);
    }

    /// @dev Creates an ETH event of `size`, fills it and draws it with DRAW_HASH.
    function _ready(uint8 size) internal returns (uint256 e) {
        e = _createEth(size);
        _fill(e, size);
        _passDraw(e, DRAW_HASH);
        tour.draw(e);
    }

    /// @dev Starts match `m` (by anyone) and tracks its game's position from the events.
    function _start(uint256 e, uint256 m) internal returns (uint256 id) {
        vm.recordLogs();
        id = tour.start(e, m);
        _absorb(vm.getRecordedLogs());
        gameOf[e][m] = id;
    }

    /// @dev The game of match `m` ends with `whiteWins` (the loser resigns).
    function _decideGame(uint256 id, bool whiteWins) internal {
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        vm.prank(whiteWins ? g.black : g.white);
        ref.resign(id);
    }

    /// @dev The game is drawn by agreement (white offers, black accepts).
    function _drawGame(uint256 id) internal {
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        _offer(id, g.white);
        Position memory p = pos[id];
        vm.prank(g.black);
        ref.acceptDraw(id, p.state, p.history, p.clock);
    }

    /// @dev Plays match `m` to a result: white wins if `whiteWins`; reported.
    function _playMatch(uint256 e, uint256 m, bool whiteWins) internal returns (address winner) {
        uint256 id = _start(e, m);
        _decideGame(id, whiteWins);
        tour.report(e, m);
        return tour.getMatch(e, m).winner;
    }

    /// @dev Plays a whole event, white winning every game (decided by `report` then `start`).
    function _playAll(uint256 e, uint256 n) internal {
        for (uint256 m; m < n - 1; ++m) {
            _playMatch(e, m, true);
        }
    }

    /// @dev Every entrant claims and withdraws; returns the total paid out to players.
    function _claimAll(uint256 e, uint256 n) internal returns (uint256 total) {
        for (uint256 i; i < n; ++i) {
            address p = _player(i);
            uint256 before = tour.credits(p, address(0));
            vm.prank(p);
            tour.claim(e);
            total += tour.credits(p, address(0)) - before;
        }
    }

    /// @dev Tier of the entrant `index` from the recorded matches (the loss's round), 0 for the winner.
    function _tierFromMatches(uint256 e, uint256 n, address p) internal view returns (uint256) {
        uint256 k;
        while (1 << k < n) ++k;
        uint256 offset;
        for (uint256 r; r < k; ++r) {
            uint256 count = n >> (r + 1);
            for (uint256 m = offset; m < offset + count; ++m) {
                IChessTournamentTypes.MatchInfo memory info = tour.getMatch(e, m);
                if ((info.white == p || info.black == p) && info.winner != p) return k - r;
            }
            offset += count;
        }
        return 0;
    }

    /// @dev The referee's logs in `logs` by topic.
    function _count(Vm.Log[] memory logs, bytes32 topic) internal pure returns (uint256 c) {
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].topics[0] == topic) ++c;
        }
    }
}
