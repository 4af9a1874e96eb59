// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Test, Vm} from "./utils/Test.sol";
import {ChessReferee} from "../src/ChessReferee.sol";
import {ChessRefereeAnnex} from "../src/ChessRefereeAnnex.sol";
import {ChessChannelAnnex} from "../src/ChessChannelAnnex.sol";
import {IChessReferee, IChessRefereeTypes} from "../src/IChessReferee.sol";
import {ChessChannelBlueprint} from "../src/ChessChannelBlueprint.sol";
import {ChessTournamentBlueprint} from "../src/ChessTournamentBlueprint.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {ChessTestKit} from "./rules/ChessTestKit.sol";

/// @dev Cheatcodes the shared test base does not declare.
interface VmExtra {
    function cool(address target) external;
}

/// @notice Shared harness for the referee tests: players, game set-up, and a client
/// that tracks every game's current position FROM EVENTS ONLY (as a dApp would).
abstract contract RefereeBase is Test {
    IChessReferee internal ref;

    address internal alice = address(0xA11CE);
    address internal bob = address(0xB0B);
    address internal carol = address(0xCA201);

    uint32 internal constant INITIAL = 600;
    uint32 internal constant INCREMENT = 5;
    uint256 internal constant STAKE = 1 ether;
    uint256 internal constant T0 = 1_700_000_000;

    /// @dev A game's current position as rebuilt from events.
    struct Position {
        bytes state;
        bytes32 history;
        uint256 clock;
    }

    mapping(uint256 gameId => Position) internal pos;
    /// @dev Repetition keys since the last irreversible move, rebuilt from `MovePlayed` states.
    mapping(uint256 gameId => bytes32[]) internal keysSince;
    /// @dev Every referee log seen, in order, while `keepLogs` is set (rebuild-from-events tests).
    Vm.Log[] internal allLogs;
    bool internal keepLogs;

    // Mirrors of the contract's result and reason codes.
    uint8 internal constant WHITE_WINS = 1;
    uint8 internal constant BLACK_WINS = 2;
    uint8 internal constant DRAW = 3;
    uint8 internal constant ABORTED = 4;
    uint8 internal constant PHASE_OPEN = 1;
    uint8 internal constant PHASE_RUNNING = 2;
    uint8 internal constant PHASE_ENDED = 3;
    uint8 internal constant PHASE_CANCELLED = 4;

    function setUp() public virtual {
        ref = IChessReferee(
            address(
                new ChessReferee(
                    address(new ChessChannelBlueprint()),
                    address(new ChessRefereeAnnex()),
                    address(new ChessChannelAnnex()),
                    address(new ChessTournamentBlueprint())
                )
            )
        );
        vm.warp(T0);
        vm.deal(alice, 100 ether);
        vm.deal(bob, 100 ether);
        vm.deal(carol, 100 ether);
    }

    // ---------------------------------------------------------------- game set-up

    /// @dev alice (white) vs bob (named), ETH stake, standard start, running.
    function _startGame() internal returns (uint256 id) {
        id = _create(alice, bob, true, STAKE, "");
        _join(id, bob, STAKE);
    }

    function _create(address creator, address opponent, bool creatorWhite, uint256 stake, bytes memory start)
        internal
        returns (uint256 id)
    {
        vm.recordLogs();
        vm.prank(creator);
        id = ref.createGame{value: stake}(opponent, creatorWhite, address(0), stake, INITIAL, INCREMENT, 0, start);
        _absorb(vm.getRecordedLogs());
    }

    function _join(uint256 id, address who, uint256 stake) internal {
        bytes32 terms = ref.getGame(id).terms;
        vm.recordLogs();
        vm.prank(who);
        ref.joinGame{value: stake}(id, terms);
        _absorb(vm.getRecordedLogs());
    }

    // ---------------------------------------------------------------- playing

    function _move(uint256 id, address who, uint24 mv) internal {
        Position storage p = pos[id];
        vm.recordLogs();
        vm.prank(who);
        ref.move(id, p.state, p.history, p.clock, mv);
        _absorb(vm.getRecordedLogs());
    }

    function _move(uint256 id, string memory uci) internal {
        _move(id, _mover(id), _uci(uci));
    }

    /// @dev Plays a space-separated UCI list with `secondsPerMove` between moves.
    function _playAll(uint256 id, string memory ucis, uint256 secondsPerMove) internal {
        uint24[] memory mvs = _uciList(ucis);
        for (uint256 i; i < mvs.length; ++i) {
            vm.warp(block.timestamp + secondsPerMove);
            _move(id, _mover(id), mvs[i]);
        }
    }

    /// @dev `who` offers a draw in game `id`'s current position.
    function _offer(uint256 id, address who) internal {
        Position storage p = pos[id];
        vm.recordLogs();
        vm.prank(who);
        ref.offerDraw(id, p.state, p.history, p.clock);
        _absorb(vm.getRecordedLogs());
    }

    /// @dev `who` claims game `id` on time with its current position.
    function _claimTimeout(uint256 id, address who) internal {
        Position memory p = pos[id];
        vm.prank(who);
        ref.claimTimeout(id, p.state, p.history, p.clock);
    }

    /// @dev The player whose turn it is in game `id`.
    function _mover(uint256 id) internal view returns (address) {
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        return uint8(pos[id].state[56]) == 1 ? g.white : g.black;
    }

    /// @dev The player who is not to move in game `id`.
    function _waiter(uint256 id) internal view returns (address) {
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        return uint8(pos[id].state[56]) == 1 ? g.black : g.white;
    }

    // ---------------------------------------------------------------- events → positions

    /// @dev Updates `pos` from the referee's events, exactly as an indexer would.
    function _absorb(Vm.Log[] memory logs) internal virtual {
        for (uint256 i; i < logs.length; ++i) {
            Vm.Log memory l = logs[i];
            if (l.emitter != address(ref)) continue;
            if (keepLogs) allLogs.push(l);
            bytes32 t = l.topics[0];
            uint256 id = l.topics.length > 1 ? uint256(l.topics[1]) : 0;
            if (t == IChessRefereeTypes.GameCreated.selector) {
                (,,,,,,, bytes memory state, bytes32 history) =
                    abi.decode(l.data, (bool, address, uint256, uint32, uint32, uint32, bytes32, bytes, bytes32));
                pos[id].state = state;
                pos[id].history = history;
                delete keysSince[id];
                keysSince[id].push(ChessRules.repetitionKey(state));
            } else if (t == IChessRefereeTypes.GameJoined.selector) {
                pos[id].clock = abi.decode(l.data, (uint256));
            } else if (t == IChessRefereeTypes.MovePlayed.selector) {
                (,,, bytes32 history, uint256 clock, bytes memory state) =
                    abi.decode(l.data, (uint24, uint32, uint8, bytes32, uint256, bytes));
                pos[id].state = state;
                pos[id].history = history;
                pos[id].clock = clock;
                if (uint8(state[10]) == 0) delete keysSince[id];
                keysSince[id].push(ChessRules.repetitionKey(state));
            } else if (t == IChessRefereeTypes.DrawOffered.selector) {
                (uint256 clock) = abi.decode(l.data, (uint256));
                pos[id].clock = clock;
            }
        }
    }

    function _keys(uint256 id) internal view returns (bytes32[] memory) {
        return keysSince[id];
    }

    // ---------------------------------------------------------------- views

    function _phase(uint256 id) internal view returns (uint8) {
        return ref.getGame(id).phase;
    }

    function _result(uint256 id) internal view returns (uint8 result, uint8 reason) {
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        return (g.result, g.reason);
    }

    function _ply(uint256 id) internal view returns (uint256 ply) {
        (,,,, ply,,,,) = ref.decodeClock(pos[id].clock);
    }

    // ---------------------------------------------------------------- UCI

    /// @dev "e2e4" / "e7e8q" → (from << 16) | (to << 8) | promotion (the rules tests' parser).
    function _uci(string memory s) internal pure returns (uint24) {
        return uint24(ChessTestKit.uci(s));
    }

    function _uciList(string memory s) internal pure returns (uint24[] memory out) {
        bytes memory b = bytes(s);
        uint256 n = b.length == 0 ? 0 : 1;
        for (uint256 i; i < b.length; ++i) {
            if (b[i] == " ") ++n;
        }
        out = new uint24[](n);
        uint256 k;
        uint256 start;
        for (uint256 i; i <= b.length; ++i) {
            if (i == b.length || b[i] == " ") {
                bytes memory w = new bytes(i - start);
                for (uint256 j; j < w.length; ++j) {
                    w[j] = b[start + j];
                }
                out[k++] = _uci(string(w));
                start = i + 1;
            }
        }
    }

    // ---------------------------------------------------------------- FEN

    /// @dev FEN → 128-byte state (the rules tests' parser; trusts its input).
    function _fen(string memory fen) internal pure returns (bytes memory) {
        return ChessTestKit.fen(fen);
    }
}
