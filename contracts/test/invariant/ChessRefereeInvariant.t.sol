// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Test, Vm} from "../utils/Test.sol";
import {ChessReferee} from "../../src/ChessReferee.sol";
import {ChessRefereeAnnex} from "../../src/ChessRefereeAnnex.sol";
import {IChessReferee, IChessRefereeTypes} from "../../src/IChessReferee.sol";
import {ChessChannelBlueprint} from "../../src/ChessChannelBlueprint.sol";
import {ChessTournamentBlueprint} from "../../src/ChessTournamentBlueprint.sol";
import {ChessRules} from "../../src/ChessRules.sol";
import {ChessRulesView} from "../../src/ChessRulesView.sol";
import {MockERC20} from "../mocks/MockERC20.sol";
import {ChessTestKit} from "../rules/ChessTestKit.sol";
import {IChessChannel} from "../../src/IChessChannel.sol";
import {ChessChannelAnnex} from "../../src/ChessChannelAnnex.sol";
import {FrozenPosition} from "../../src/ChessCourt.sol";
import {RepetitionChain} from "../../src/RepetitionChain.sol";
import {ClockWord} from "../../src/ClockWord.sol";
import {Move, Delegation, Resignation, Result, Receipt, Auth} from "../../src/ChannelHash.sol";

/// @notice Picks a random legal move (at most 48 tries), for the handlers.
library MovePicker {
    function find(bytes memory s, uint256 seed) internal pure returns (bool, uint24) {
        int256 side = uint8(s[56]) == 1 ? int256(1) : -1;
        uint256[16] memory own;
        uint256 n;
        for (uint256 sq; sq < 120; ++sq) {
            int256 p = int8(uint8(s[sq]));
            if (sq & 0x88 == 0 && p != 0 && (p > 0) == (side > 0) && n < 16) own[n++] = sq;
        }
        for (uint256 t; t < 48; ++t) {
            uint256 r = uint256(keccak256(abi.encode(seed, t)));
            uint256 from = own[r % n];
            int256 piece = int8(uint8(s[from]));
            uint256 to = ((r >> 16) % 8) * 16 + ((r >> 24) % 8);
            bool promotes = (piece == 1 && to < 8) || (piece == -1 && to >= 112);
            uint24 mv = uint24((from << 16) | (to << 8) | (promotes ? 5 : 0));
            if (ChessRules.check(s, mv) == 0) return (true, mv);
        }
        return (false, 0);
    }
}

/// @notice Drives the referee with random lifecycles of many games between three actors,
/// in ETH and in a token: create, join, cancel, random legal moves, resign, draw
/// offers, timeouts, withdrawals (channel games: ChannelHandler, whose events it takes in).
/// Tracks each game's position from events only.
contract RefereeHandler {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    IChessReferee public immutable ref;
    MockERC20 public immutable token;
    /// @notice The actors' private keys (they sign channel messages).
    uint256[3] public keys = [uint256(0xA1), 0xA2, 0xA3];
    address[3] public actors;

    struct Position {
        bytes state;
        bytes32 history;
        uint256 clock;
    }

    mapping(uint256 gameId => Position) internal pos;
    uint256 public calls;
    uint256 public movesPlayed;
    uint256 public gamesEnded;
    uint256 public gamesAborted;
    uint256 public customStartTimeouts;
    uint256 public customStartAborts;
    uint256 public withdrawalsElsewhere;
    uint256 public registrations;
    /// @dev Games that emitted GameEnded more than once (must stay 0).
    uint256 public endedTwice;
    mapping(uint256 gameId => bool) internal ended;

    constructor(IChessReferee referee, MockERC20 t) {
        ref = referee;
        token = t;
        for (uint256 i; i < 3; ++i) {
            actors[i] = vm.addr(keys[i]);
            vm.deal(actors[i], 1_000 ether);
            t.mint(actors[i], 1_000 ether);
            vm.prank(actors[i]);
            t.approve(address(referee), type(uint256).max);
        }
    }

    /// @notice The position of `gameId` as rebuilt from events.
    function position(uint256 gameId) external view returns (bytes memory, bytes32, uint256) {
        Position storage p = pos[gameId];
        return (p.state, p.history, p.clock);
    }

    function _actor(uint256 seed) internal view returns (address) {
        return actors[seed % 3];
    }

    function _game(uint256 seed) internal view returns (uint256) {
        uint256 n = ref.nextGameId() - 1;
        return n == 0 ? 0 : 1 + seed % n;
    }

    function _absorb() internal {
        _absorbLogs(vm.getRecordedLogs());
    }

    /// @notice Takes in the referee's logs of a transaction another handler sent (the
    /// channel handler), so positions and endings are tracked from every event.
    function absorb(Vm.Log[] calldata logs) external {
        _absorbLogs(logs);
    }

    function _absorbLogs(Vm.Log[] memory logs) internal {
        for (uint256 i; i < logs.length; ++i) {
            Vm.Log memory l = logs[i];
            if (l.emitter != address(ref)) continue;
            bytes32 t = l.topics[0];
            uint256 id = l.topics.length > 1 ? uint256(l.topics[1]) : 0;
            if (t == IChessRefereeTypes.GameCreated.selector) {
                (,,,,,,, bytes memory state, bytes32 history) =
                    abi.decode(l.data, (bool, address, uint256, uint32, uint32, uint32, bytes32, bytes, bytes32));
                pos[id].state = state;
                pos[id].history = history;
            } else if (t == IChessRefereeTypes.GameJoined.selector) {
                pos[id].clock = abi.decode(l.data, (uint256));
            } else if (t == IChessRefereeTypes.MovePlayed.selector) {
                (,,, bytes32 history, uint256 clock, bytes memory state) =
                    abi.decode(l.data, (uint24, uint32, uint8, bytes32, uint256, bytes));
                pos[id] = Position(state, history, clock);
                ++movesPlayed;
            } else if (t == IChessRefereeTypes.DrawOffered.selector) {
                pos[id].clock = abi.decode(l.data, (uint256));
            } else if (t == IChessRefereeTypes.PositionRegistered.selector) {
                (, bytes memory state, bytes32 history, uint256 clock) =
                    abi.decode(l.data, (uint32, bytes, bytes32, uint256));
                pos[id] = Position(state, history, clock);
                ++registrations;
            } else if (t == IChessRefereeTypes.GameEnded.selector) {
                if (ended[id]) ++endedTwice;
                ended[id] = true;
                ++gamesEnded;
                (uint8 result, uint8 reason) = abi.decode(l.data, (uint8, uint8));
                (,,,,,,, bool customStart,) = ref.decodeClock(pos[id].clock);
                if (result == 4) {
                    ++gamesAborted;
                    if (customStart) ++customStartAborts;
                }
                if (customStart && (reason == 6 || reason == 7)) ++customStartTimeouts;
            }
        }
    }

    /// @dev Start positions the handler picks from: the standard one (half the games), a
    /// lost one for black to move (no timeout may refund it) and one with white to move.
    function _start(uint256 seed) internal pure returns (bytes memory) {
        uint256 k = seed % 4;
        if (k == 1) return ChessTestKit.fen("7k/8/5K2/8/8/8/8/6Q1 b - - 0 1");
        if (k == 2) return ChessTestKit.fen("4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1");
        return "";
    }

    /// @notice The terms a create call draws from its seeds (also for ChannelHandler):
    /// creator, opponent (0 when open), stake, a window of 60..180 s (inside the 60 s clock +
    /// grace or beyond it) and the start position.
    function termsFor(uint256 actorSeed, uint256 stakeSeed, bool open)
        public
        view
        returns (address creator, address opponent, uint256 stake, uint32 window, bytes memory start)
    {
        creator = _actor(actorSeed);
        opponent = open ? address(0) : _actor(actorSeed % 3 + 1 + stakeSeed % 2);
        stake = stakeSeed % 5 ether;
        window = uint32(60 + (stakeSeed >> 128) % 121);
        start = _start(stakeSeed >> 64);
    }

    function create(uint256 actorSeed, uint256 stakeSeed, bool useToken, bool open, bool creatorWhite) external {
        ++calls;
        (address creator, address opponent, uint256 stake, uint32 window, bytes memory start) =
            termsFor(actorSeed, stakeSeed, open);
        vm.recordLogs();
        vm.prank(creator);
        if (useToken) {
            ref.createGame(opponent, creatorWhite, address(token), stake, 60, 2, window, start);
        } else {
            ref.createGame{value: stake}(opponent, creatorWhite, address(0), stake, 60, 2, window, start);
        }
        _absorb();
    }

    function join(uint256 gameSeed, uint256 actorSeed) external {
        ++calls;
        uint256 id = _game(gameSeed);
        if (id == 0) return;
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        if (g.phase != 1) return;
        address creator = g.creatorWhite ? g.white : g.black;
        address invited = g.creatorWhite ? g.black : g.white;
        address joiner = invited != address(0) ? invited : _actor(actorSeed);
        if (joiner == creator) joiner = _actor(actorSeed % 3 + 1);
        if (joiner == creator) return;
        bytes32 terms = ref.getGame(id).terms;
        vm.recordLogs();
        vm.prank(joiner);
        ref.joinGame{value: g.token == address(0) ? g.stake : 0}(id, terms);
        _absorb();
    }

    function cancel(uint256 gameSeed) external {
        ++calls;
        uint256 id = _game(gameSeed);
        if (id == 0) return;
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        if (g.phase != 1) return;
        vm.prank(g.creatorWhite ? g.white : g.black);
        ref.cancelGame(id);
    }

    function play(uint256 gameSeed, uint256 moveSeed) external {
        ++calls;
        uint256 id = _game(gameSeed);
        if (id == 0 || ref.getGame(id).commitment == 0) return;
        Position memory p = pos[id];
        // a registered decided position is only finished (ChannelHandler.finishRegistered)
        if (ClockWord.pendingStatus(p.clock) != 0) return;
        (bool found, uint24 mv) = MovePicker.find(p.state, moveSeed);
        if (!found) return;
        (,, bool whiteToMove, uint256 deadline) = ref.clocks(id, p.state, p.history, p.clock);
        if (block.timestamp > deadline) return;
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        vm.recordLogs();
        vm.prank(whiteToMove ? g.white : g.black);
        ref.move(id, p.state, p.history, p.clock, mv);
        _absorb();
    }

    function resign(uint256 gameSeed, bool white) external {
        ++calls;
        uint256 id = _game(gameSeed);
        if (id == 0) return;
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        if (g.phase != 2) return;
        vm.recordLogs();
        vm.prank(white ? g.white : g.black);
        ref.resign(id);
        _absorb();
    }

    function agreeDraw(uint256 gameSeed, bool whiteOffers) external {
        ++calls;
        uint256 id = _game(gameSeed);
        if (id == 0) return;
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        if (g.commitment == 0) return;
        Position memory p = pos[id];
        if (ClockWord.pendingStatus(p.clock) != 0) return;
        (,,, uint256 deadline) = ref.clocks(id, p.state, p.history, p.clock);
        if (block.timestamp > deadline) return;
        vm.recordLogs();
        vm.prank(whiteOffers ? g.white : g.black);
        ref.offerDraw(id, p.state, p.history, p.clock);
        _absorb();
        p = pos[id];
        vm.recordLogs();
        vm.prank(whiteOffers ? g.black : g.white);
        ref.acceptDraw(id, p.state, p.history, p.clock);
        _absorb();
    }

    function timeout(uint256 gameSeed, uint256 wait) external {
        ++calls;
        vm.warp(block.timestamp + wait % 200);
        uint256 id = _game(gameSeed);
        if (id == 0) return;
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        if (g.commitment == 0) return;
        Position memory p = pos[id];
        if (ClockWord.pendingStatus(p.clock) != 0) return;
        (,, bool whiteToMove, uint256 deadline) = ref.clocks(id, p.state, p.history, p.clock);
        (uint256 last,,,, uint256 ply,,, bool customStart, uint256 window) = ref.decodeClock(p.clock);
        if (ply < 2 && !customStart && last + window < deadline) deadline = last + window;
        if (block.timestamp <= deadline) return;
        vm.recordLogs();
        vm.prank(whiteToMove ? g.black : g.white);
        ref.claimTimeout(id, p.state, p.history, p.clock);
        _absorb();
    }

    function withdraw(uint256 actorSeed, bool useToken) external {
        ++calls;
        address who = _actor(actorSeed);
        address t = useToken ? address(token) : address(0);
        if (ref.credits(who, t) == 0) return;
        vm.prank(who);
        ref.withdraw(t);
    }

    /// @dev Withdraws an actor's credit to an address outside the game (the money leaves).
    function withdrawTo(uint256 actorSeed, bool useToken, uint160 toSeed) external {
        ++calls;
        address who = _actor(actorSeed);
        address t = useToken ? address(token) : address(0);
        if (ref.credits(who, t) == 0) return;
        vm.prank(who);
        ref.withdrawTo(t, address(uint160(0xF00D0000) + toSeed % 1000));
        ++withdrawalsElsewhere;
    }
}

/// @notice The channel paths of the invariant run: channel games created and joined, signed
/// moves off-chain, settlement, signed resignation, registration (then on-chain play through
/// RefereeHandler), both proofs. Kept apart from RefereeHandler (24 KiB); hands every
/// referee event to it.
contract ChannelHandler {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    /// @dev Initial time of channel games: above the 600..720 s response window, so a
    /// registration leaves the side to move time to play on-chain (its clock runs through
    /// the window, docs/CHANNEL.md 7.3).
    uint32 internal constant CHANNEL_TIME = 900;

    IChessReferee public immutable ref;
    IChessChannel public immutable channel;
    /// @dev The rules as a deployed view: called, not inlined, to keep this handler under
    /// the 24 KiB limit `forge build --sizes` checks.
    ChessRulesView internal immutable rules;
    RefereeHandler public immutable main;
    address public immutable token;
    uint256 public calls;
    uint256 public channelEndings;
    /// @dev Each channel game's signed transcript (start move first).
    mapping(uint256 gameId => Move[]) internal lines;

    constructor(IChessReferee referee, RefereeHandler handler) {
        ref = referee;
        channel = referee.channel();
        rules = new ChessRulesView();
        main = handler;
        token = address(handler.token());
    }

    function _actor(uint256 seed) internal view returns (address) {
        return main.actors(seed % 3);
    }

    function _game(uint256 seed) internal view returns (uint256) {
        uint256 n = ref.nextGameId() - 1;
        return n == 0 ? 0 : 1 + seed % n;
    }

    function createChannel(uint256 actorSeed, uint256 stakeSeed, bool useToken, bool open, bool creatorWhite) external {
        ++calls;
        // the response window drawn like the first-move window of on-chain games
        (address creator, address opponent, uint256 stake, uint32 window, bytes memory start) =
            main.termsFor(actorSeed, stakeSeed, open);
        window = window - 60 + 600; // 600..720 s: v2's MIN_RESPONSE_WINDOW is 600
        vm.recordLogs();
        vm.prank(creator);
        uint256 id;
        if (useToken) {
            id = ref.createChannelGame(opponent, creatorWhite, address(token), stake, CHANNEL_TIME, 2, 0, start, window);
        } else {
            id = ref.createChannelGame{value: stake}(
                opponent, creatorWhite, address(0), stake, CHANNEL_TIME, 2, 0, start, window
            );
        }
        main.absorb(vm.getRecordedLogs());
        (bytes memory s, bytes32 history,) = main.position(id);
        lines[id].push(Move(id, 0, 0, s, history, CHANNEL_TIME, CHANNEL_TIME, 0, 0));
    }

    /// @dev The running channel game `gameSeed` picks while it is off-chain, else 0.
    function _offChain(uint256 gameSeed) internal view returns (uint256 id) {
        id = _game(gameSeed);
        if (id == 0) return 0;
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        if (g.phase != 2 || g.responseWindow == 0 || g.commitment != 0) return 0;
    }

    function _key(address player) internal view returns (uint256) {
        for (uint256 i; i < 3; ++i) {
            if (main.actors(i) == player) return main.keys(i);
        }
        revert("not an actor");
    }

    function _sign(address player, bytes32 structHash) internal view returns (Auth memory a) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(_key(player), channel.digestOf(structHash));
        a.signature = abi.encodePacked(r, s, v);
    }

    /// @dev The author (white or black address) of move `m` in game `g`.
    function _author(IChessRefereeTypes.GameInfo memory g, Move memory m) internal pure returns (address) {
        return uint8(m.state[56]) == 1 ? g.black : g.white;
    }

    /// @dev One more signed move off-chain (a random legal one), stamped now and charged the
    /// time since its predecessor's stamp (none for the first move); none once the mover's
    /// flag has fallen.
    function channelMove(uint256 gameSeed, uint256 moveSeed) external {
        ++calls;
        uint256 id = _offChain(gameSeed);
        if (id == 0) return;
        Move memory q = lines[id][lines[id].length - 1];
        if (rules.status(q.state) != 0) return;
        bool white = uint8(q.state[56]) == 1;
        uint256 elapsed = q.ply == 0 ? 0 : block.timestamp - q.timestamp;
        uint256 left = white ? q.whiteTime : q.blackTime;
        if (elapsed > left) return;
        uint24[] memory legal = rules.legalMoves(q.state);
        if (legal.length == 0) return;
        uint24 mv = legal[moveSeed % legal.length];
        bytes memory s = rules.play(q.state, mv);
        uint32 after_ = uint32(left - elapsed + 2);
        lines[id].push(
            Move({
                gameId: id,
                ply: q.ply + 1,
                mv: mv,
                state: s,
                history: RepetitionChain.afterMove(s, q.history),
                whiteTime: white ? after_ : q.whiteTime,
                blackTime: white ? q.blackTime : after_,
                timestamp: uint64(block.timestamp),
                previous: channel.hashMove(q)
            })
        );
    }

    /// @dev Whether agreements still count in game `id` (off-chain, or a frozen registration;
    /// the handler's agreements are at the latest signed ply, never below the registered one).
    function _agreementsOpen(uint256 id) internal view returns (bool) {
        uint256 windowEnd = ref.channelGame(id).windowEnd;
        return windowEnd == 0 || block.timestamp < windowEnd;
    }

    /// @dev The latest signed move of game `id` (the start move before any).
    function _latest(uint256 id) internal view returns (Move memory) {
        return lines[id][lines[id].length - 1];
    }

    function settle(uint256 gameSeed, uint8 resultSeed) external {
        ++calls;
        uint256 id = _game(gameSeed);
        if (id == 0) return;
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        if (g.phase != 2 || g.responseWindow == 0 || !_agreementsOpen(id)) return;
        Move memory last = _latest(id);
        Result memory r = Result(id, last.ply, channel.hashMove(last), 1 + resultSeed % 3);
        bytes32 h = channel.hashResult(r);
        vm.recordLogs();
        channel.settle(r, _sign(g.white, h), _sign(g.black, h));
        main.absorb(vm.getRecordedLogs());
        ++channelEndings;
    }

    function resignBySignature(uint256 gameSeed, bool white) external {
        ++calls;
        uint256 id = _game(gameSeed);
        if (id == 0) return;
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        if (g.phase != 2 || g.responseWindow == 0 || !_agreementsOpen(id)) return;
        Move memory last = _latest(id);
        Resignation memory r = Resignation(id, last.ply, channel.hashMove(last));
        vm.recordLogs();
        channel.resignBySignature(r, _sign(white ? g.white : g.black, channel.hashResignation(r)), white);
        main.absorb(vm.getRecordedLogs());
        ++channelEndings;
    }

    /// @dev Registers the latest signed pair, with the side to move's receipt (at the move's
    /// stamp) when the move is too old to register without; the game continues on-chain
    /// after the window (or is finished by `finishRegistered` if decided).
    function register(uint256 gameSeed) external {
        ++calls;
        uint256 id = _offChain(gameSeed);
        if (id == 0) return;
        uint256 n = lines[id].length;
        if (n < 2) return;
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        Move memory q = lines[id][n - 2];
        Move memory m = lines[id][n - 1];
        Auth memory qa;
        if (q.ply != 0) qa = _sign(_author(g, q), channel.hashMove(q));
        Auth memory ma = _sign(_author(g, m), channel.hashMove(m));
        Receipt memory rc;
        Auth memory ra;
        if (m.timestamp + channel.STAMP_TOLERANCE() < block.timestamp) {
            rc = Receipt(id, m.ply, channel.hashMove(m), m.timestamp);
            ra = _sign(_author(g, m) == g.white ? g.black : g.white, channel.hashReceipt(rc));
        }
        vm.prank(ref.getGame(m.gameId).white);
        vm.recordLogs();
        channel.register(q, qa, m, ma, rc, ra, _frozen(m));
        main.absorb(vm.getRecordedLogs());
        // Nobody overtakes: on-chain play starts when the response window ends.
        vm.warp(block.timestamp + g.responseWindow + 1);
    }

    /// @dev Anyone finishes a registered decided position once its window is over.
    function finishRegistered(uint256 gameSeed, uint256 actorSeed) external {
        ++calls;
        uint256 id = _game(gameSeed);
        if (id == 0 || ref.getGame(id).phase != 2 || ref.getGame(id).commitment == 0) return;
        (bytes memory state, bytes32 history, uint256 clock) = main.position(id);
        if (ClockWord.pendingStatus(clock) == 0 || block.timestamp < ClockWord.lastTimestamp(clock)) return;
        vm.recordLogs();
        vm.prank(_actor(actorSeed));
        ref.finishRegistered(id, state, history, clock);
        main.absorb(vm.getRecordedLogs());
        ++channelEndings;
    }

    /// @dev The author of the latest signed move also signs another move for that ply.
    function proveEquivocation(uint256 gameSeed) external {
        ++calls;
        uint256 id = _game(gameSeed);
        if (id == 0 || ref.getGame(id).phase != 2) return;
        uint256 n = lines[id].length;
        if (n < 2) return;
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        Move memory a = lines[id][n - 1];
        Move memory b = lines[id][n - 1];
        // the same position with another claimed time: a different message for the same ply
        if (uint8(a.state[56]) == 1) b.blackTime = a.blackTime + 1;
        else b.whiteTime = a.whiteTime + 1;
        address author = _author(g, a);
        vm.recordLogs();
        channel.proveEquivocation(a, _sign(author, channel.hashMove(a)), b, _sign(author, channel.hashMove(b)));
        main.absorb(vm.getRecordedLogs());
        ++channelEndings;
    }

    /// @dev The side to move signs a move that cuts its opponent's time (code 4).
    function proveIllegalMove(uint256 gameSeed, uint256 moveSeed) external {
        ++calls;
        uint256 id = _game(gameSeed);
        if (id == 0 || ref.getGame(id).phase != 2 || lines[id].length == 0) return;
        IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
        Move memory q = lines[id][lines[id].length - 1];
        if (rules.status(q.state) != 0) return;
        uint24[] memory legal = rules.legalMoves(q.state);
        if (legal.length == 0) return;
        uint24 mv = legal[moveSeed % legal.length];
        bytes memory s = rules.play(q.state, mv);
        bool white = uint8(q.state[56]) == 1;
        Move memory bad = Move({
            gameId: id,
            ply: q.ply + 1,
            mv: mv,
            state: s,
            history: RepetitionChain.afterMove(s, q.history),
            whiteTime: white ? q.whiteTime : q.whiteTime - 1,
            blackTime: white ? q.blackTime - 1 : q.blackTime,
            timestamp: q.timestamp,
            previous: channel.hashMove(q)
        });
        vm.recordLogs();
        channel.proveIllegalMove(q, bad, _sign(_author(g, bad), channel.hashMove(bad)));
        main.absorb(vm.getRecordedLogs());
        ++channelEndings;
    }

    /// @dev The `frozen` position of a registration of `last`: ignored, the handler registers off-chain games only
    /// (never an overtake of a frozen registration).
    function _frozen(Move memory last) internal pure returns (FrozenPosition memory none) {
        last;
        return none;
    }
}

/// @notice The referee's ETH and token balances always equal the stakes held for open
/// and running games plus the credits nobody withdrew yet: no money is ever created,
/// lost or stuck.
contract ChessRefereeInvariantTest is Test {
    IChessReferee internal ref;
    MockERC20 internal token;
    RefereeHandler internal handler;
    ChannelHandler internal channelHandler;

    function setUp() public {
        vm.warp(1_700_000_000);
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
        token = new MockERC20();
        handler = new RefereeHandler(ref, token);
        channelHandler = new ChannelHandler(ref, handler);
        targetContract(address(handler));
        targetContract(address(channelHandler));
        bytes4[] memory selectors = new bytes4[](9);
        selectors[0] = RefereeHandler.create.selector;
        selectors[1] = RefereeHandler.join.selector;
        selectors[2] = RefereeHandler.cancel.selector;
        selectors[3] = RefereeHandler.play.selector;
        selectors[4] = RefereeHandler.resign.selector;
        selectors[5] = RefereeHandler.agreeDraw.selector;
        selectors[6] = RefereeHandler.timeout.selector;
        selectors[7] = RefereeHandler.withdraw.selector;
        selectors[8] = RefereeHandler.withdrawTo.selector;
        targetSelector(FuzzSelector({addr: address(handler), selectors: selectors}));
        bytes4[] memory channelSelectors = new bytes4[](9);
        channelSelectors[0] = ChannelHandler.createChannel.selector;
        channelSelectors[1] = ChannelHandler.channelMove.selector;
        channelSelectors[2] = ChannelHandler.settle.selector;
        channelSelectors[3] = ChannelHandler.resignBySignature.selector;
        channelSelectors[4] = ChannelHandler.register.selector;
        channelSelectors[5] = ChannelHandler.proveEquivocation.selector;
        channelSelectors[6] = ChannelHandler.proveIllegalMove.selector;
        channelSelectors[7] = ChannelHandler.channelMove.selector; // twice: games need moves
        channelSelectors[8] = ChannelHandler.finishRegistered.selector;
        targetSelector(FuzzSelector({addr: address(channelHandler), selectors: channelSelectors}));
    }

    /// @notice The handler really plays and settles games (so the invariants are not
    /// checked over an idle contract).
    function test_HandlerPlaysAndSettlesGames() public {
        for (uint256 i; i < 6; ++i) {
            handler.create(i, 1 ether + i, i % 2 == 0, i % 3 == 0, i % 2 == 1);
            handler.join(i, i + 1);
        }
        for (uint256 i; i < 60; ++i) {
            handler.play(i, uint256(keccak256(abi.encode(i))));
        }
        handler.resign(0, true);
        handler.agreeDraw(1, false);
        handler.timeout(2, 199);
        handler.timeout(2, 199);
        for (uint256 i; i < 6; ++i) {
            handler.withdraw(i, i % 2 == 0);
        }
        assertGt(handler.movesPlayed(), 20);
        assertGe(handler.gamesEnded(), 3);
        invariant_EthBalanceEqualsStakesPlusCredits();
        invariant_TokenBalanceEqualsStakesPlusCredits();
        invariant_OnlyRunningGamesHaveACommitment();
        invariant_EventsAlwaysCarryTheCommittedPosition();
    }

    /// @notice The handler reaches the money paths of issue 12: first-move aborts, timeouts
    /// from custom starts (a win, never a refund), withdrawals to another address.
    function test_HandlerReachesFirstMoveAbortCustomTimeoutAndWithdrawTo() public {
        // Game seeds pick game 1 + seed % games: 0 is game 1, 1 is game 2 once it exists.
        handler.create(0, 1 ether, false, false, true); // game 1: standard start, 60 s window
        handler.join(0, 1);
        handler.create(1, 1 ether + (uint256(1) << 64), true, false, true); // game 2: lost custom start, black to move
        handler.join(1, 2);
        handler.timeout(0, 181); // past game 1's window and both 75 s budgets
        handler.timeout(1, 0);
        assertEq(handler.gamesAborted(), 1);
        assertEq(handler.customStartTimeouts(), 1);
        for (uint256 i; i < 3; ++i) {
            handler.withdrawTo(i, i == 1, uint160(i));
        }
        assertGe(handler.withdrawalsElsewhere(), 2);
        invariant_EthBalanceEqualsStakesPlusCredits();
        invariant_TokenBalanceEqualsStakesPlusCredits();
        invariant_OnlyRunningGamesHaveACommitment();
    }

    /// @notice The handler reaches every channel path: settlement, signed resignation,
    /// registration then on-chain play, both proofs.
    function test_HandlerReachesChannelPaths() public {
        for (uint256 i; i < 5; ++i) {
            channelHandler.createChannel(i, 1 ether + i, i % 2 == 0, false, true); // standard starts
            handler.join(i, i + 1);
        }
        for (uint256 k; k < 4; ++k) {
            for (uint256 i; i < 5; ++i) {
                channelHandler.channelMove(i, uint256(keccak256(abi.encode(i, k))));
            }
        }
        channelHandler.settle(0, 0);
        channelHandler.resignBySignature(1, true);
        channelHandler.register(2);
        handler.play(2, 7);
        channelHandler.proveEquivocation(3);
        for (uint256 seed; ref.getGame(5).phase == 2 && seed < 20; ++seed) {
            channelHandler.proveIllegalMove(4, seed); // until a seed finds a legal move to distort
        }
        assertEq(channelHandler.channelEndings(), 4);
        assertEq(handler.registrations(), 1);
        assertEq(ref.getGame(3).phase, 2, "game 3 continues on-chain");
        invariant_EthBalanceEqualsStakesPlusCredits();
        invariant_TokenBalanceEqualsStakesPlusCredits();
        invariant_OnlyRunningGamesHaveACommitment();
        invariant_EventsAlwaysCarryTheCommittedPosition();
        invariant_NoGameEndsTwice();
    }

    /// @dev Stakes the contract must hold for games not yet settled, in `asset`.
    function _held(address asset) internal view returns (uint256 sum) {
        uint256 n = ref.nextGameId();
        for (uint256 id = 1; id < n; ++id) {
            IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
            if (g.token != asset) continue;
            if (g.phase == 1) sum += g.stake;
            else if (g.phase == 2) sum += 2 * g.stake;
        }
    }

    function _credits(address asset) internal view returns (uint256 sum) {
        for (uint256 i; i < 3; ++i) {
            sum += ref.credits(handler.actors(i), asset);
        }
    }

    /// forge-config: default.invariant.fail-on-revert = true
    function invariant_EthBalanceEqualsStakesPlusCredits() public view {
        assertEq(address(ref).balance, _held(address(0)) + _credits(address(0)));
    }

    /// forge-config: default.invariant.fail-on-revert = true
    function invariant_TokenBalanceEqualsStakesPlusCredits() public view {
        assertEq(token.balanceOf(address(ref)), _held(address(token)) + _credits(address(token)));
    }

    /// forge-config: default.invariant.fail-on-revert = true
    function invariant_EventsAlwaysCarryTheCommittedPosition() public view {
        uint256 n = ref.nextGameId();
        for (uint256 id = 1; id < n; ++id) {
            IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
            if (g.phase != 2 || g.commitment == 0) continue;
            (bytes memory state, bytes32 history, uint256 clock) = handler.position(id);
            assertEq(ref.positionCommitment(state, history, clock), g.commitment);
        }
    }

    /// @notice Issue 12 finding 1: a game from a custom start is never aborted with refunds.
    /// forge-config: default.invariant.fail-on-revert = true
    function invariant_NoCustomStartGameIsAborted() public view {
        assertEq(handler.customStartAborts(), 0);
    }

    /// forge-config: default.invariant.fail-on-revert = true
    function invariant_OnlyRunningGamesHaveACommitment() public view {
        uint256 n = ref.nextGameId();
        for (uint256 id = 1; id < n; ++id) {
            IChessRefereeTypes.GameInfo memory g = ref.getGame(id);
            // a running game without one is a channel game played off-chain
            assertEq(g.commitment != bytes32(0), g.phase == 2 && (g.responseWindow == 0 || g.commitment != 0));
        }
    }

    /// @notice Nothing ends twice (so nothing is paid twice), whatever path ended it.
    /// forge-config: default.invariant.fail-on-revert = true
    function invariant_NoGameEndsTwice() public view {
        assertEq(handler.endedTwice(), 0);
    }
}
