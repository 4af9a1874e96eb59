// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Test, Vm} from "./utils/Test.sol";
import {ChessReferee} from "../src/ChessReferee.sol";
import {ChessRules} from "../src/ChessRules.sol";

/// @dev Cheatcodes the shared test base does not declare.
interface VmExtra {
    function cool(address target) external;
}

/// @notice Shared harness for the referee tests: players, game set-up, and a client
/// that tracks every game's current position FROM EVENTS ONLY (as a dApp would).
abstract contract RefereeBase is Test {
    ChessReferee internal ref;

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
        ref = new ChessReferee();
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
        id = ref.createGame{value: stake}(opponent, creatorWhite, address(0), stake, INITIAL, INCREMENT, start);
        _absorb(vm.getRecordedLogs());
    }

    function _join(uint256 id, address who, uint256 stake) internal {
        vm.recordLogs();
        vm.prank(who);
        ref.joinGame{value: stake}(id);
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

    /// @dev The player whose turn it is in game `id`.
    function _mover(uint256 id) internal view returns (address) {
        ChessReferee.GameInfo memory g = ref.getGame(id);
        return uint8(pos[id].state[56]) == 1 ? g.white : g.black;
    }

    /// @dev The player who is not to move in game `id`.
    function _waiter(uint256 id) internal view returns (address) {
        ChessReferee.GameInfo memory g = ref.getGame(id);
        return uint8(pos[id].state[56]) == 1 ? g.black : g.white;
    }

    // ---------------------------------------------------------------- events → positions

    /// @dev Updates `pos` from the referee's events, exactly as an indexer would.
    function _absorb(Vm.Log[] memory logs) internal {
        for (uint256 i; i < logs.length; ++i) {
            Vm.Log memory l = logs[i];
            if (l.emitter != address(ref)) continue;
            if (keepLogs) allLogs.push(l);
            bytes32 t = l.topics[0];
            uint256 id = l.topics.length > 1 ? uint256(l.topics[1]) : 0;
            if (t == ChessReferee.GameCreated.selector) {
                (,,,,, bytes memory state, bytes32 history) =
                    abi.decode(l.data, (bool, address, uint256, uint32, uint32, bytes, bytes32));
                pos[id].state = state;
                pos[id].history = history;
                delete keysSince[id];
                keysSince[id].push(ChessRules.repetitionKey(state));
            } else if (t == ChessReferee.GameJoined.selector) {
                pos[id].clock = abi.decode(l.data, (uint256));
            } else if (t == ChessReferee.MovePlayed.selector) {
                (,,, bytes32 history, uint256 clock, bytes memory state) =
                    abi.decode(l.data, (uint24, uint32, uint8, bytes32, uint256, bytes));
                pos[id].state = state;
                pos[id].history = history;
                pos[id].clock = clock;
                if (uint8(state[10]) == 0) delete keysSince[id];
                keysSince[id].push(ChessRules.repetitionKey(state));
            } else if (t == ChessReferee.DrawOffered.selector) {
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
        ChessReferee.GameInfo memory g = ref.getGame(id);
        return (g.result, g.reason);
    }

    function _ply(uint256 id) internal view returns (uint256 ply) {
        (,,,, ply,,) = ref.decodeClock(pos[id].clock);
    }

    // ---------------------------------------------------------------- UCI

    /// @dev "e2e4" / "e7e8q" → (from << 16) | (to << 8) | promotion.
    function _uci(string memory s) internal pure returns (uint24) {
        bytes memory b = bytes(s);
        require(b.length == 4 || b.length == 5, "uci length");
        uint256 from = _square(uint8(b[0]), uint8(b[1]));
        uint256 to = _square(uint8(b[2]), uint8(b[3]));
        uint256 promo;
        if (b.length == 5) {
            bytes1 c = b[4];
            promo = c == "n" ? 2 : c == "b" ? 3 : c == "r" ? 4 : c == "q" ? 5 : 99;
            require(promo != 99, "uci promotion");
        }
        return uint24((from << 16) | (to << 8) | promo);
    }

    function _square(uint8 file, uint8 rank) internal pure returns (uint256) {
        require(file >= 0x61 && file <= 0x68 && rank >= 0x31 && rank <= 0x38, "uci square");
        return (8 - (rank - 0x30)) * 16 + (file - 0x61);
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

    /// @dev FEN → 128-byte state (ENCODING.md sections 1-5); test helper, trusts its input.
    function _fen(string memory fen) internal pure returns (bytes memory s) {
        bytes memory f = bytes(fen);
        s = new bytes(128);
        uint256 i;
        uint256 row;
        uint256 col;
        for (; f[i] != " "; ++i) {
            bytes1 c = f[i];
            if (c == "/") {
                ++row;
                col = 0;
            } else if (c >= "1" && c <= "8") {
                col += uint8(c) - 0x30;
            } else {
                int8 code = _pieceCode(c);
                uint256 sq = row * 16 + col;
                s[sq] = bytes1(uint8(code));
                if (code == 6) s[123] = bytes1(uint8(sq));
                if (code == -6) s[11] = bytes1(uint8(sq));
                ++col;
            }
        }
        ++i;
        bool black = f[i] == "b";
        s[56] = black ? bytes1(0xff) : bytes1(0x01);
        i += 2;
        s[62] = 0xff;
        s[63] = 0xff;
        s[78] = 0xff;
        s[79] = 0xff;
        for (; f[i] != " "; ++i) {
            if (f[i] == "K") s[79] = 0;
            if (f[i] == "Q") s[78] = 0;
            if (f[i] == "k") s[63] = 0;
            if (f[i] == "q") s[62] = 0;
        }
        ++i;
        if (f[i] != "-") {
            uint256 sq = _square(uint8(f[i]), uint8(f[i + 1]));
            s[f[i + 1] == "3" ? 77 : 61] = bytes1(uint8(sq));
            i += 2;
        } else {
            ++i;
        }
        ++i;
        uint256 half;
        for (; f[i] != " "; ++i) {
            half = half * 10 + uint8(f[i]) - 0x30;
        }
        ++i;
        uint256 full;
        for (; i < f.length; ++i) {
            full = full * 10 + uint8(f[i]) - 0x30;
        }
        s[10] = bytes1(uint8(half > 255 ? 255 : half));
        uint256 ply = 2 * (full - 1) + (black ? 1 : 0);
        s[8] = bytes1(uint8(ply / 128));
        s[9] = bytes1(uint8(ply % 128));
    }

    function _pieceCode(bytes1 c) private pure returns (int8) {
        if (c == "P") return 1;
        if (c == "N") return 2;
        if (c == "B") return 3;
        if (c == "R") return 4;
        if (c == "Q") return 5;
        if (c == "K") return 6;
        if (c == "p") return -1;
        if (c == "n") return -2;
        if (c == "b") return -3;
        if (c == "r") return -4;
        if (c == "q") return -5;
        if (c == "k") return -6;
        revert("fen piece");
    }
}
