// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

/// @title ClockWord
/// @notice The packed clock word of a running game (docs/REFEREE.md section 3), bit
/// offsets from the least significant bit: 0..39 timestamp of the join or last move,
/// 40..71 white's budget, 72..103 black's budget (seconds left + unused grace), 104..135
/// increment, 136..167 ply, 168 white offers a draw, 169 black offers a draw, 170 the game
/// started from a custom position, 171..173 the pending status of a registered decided
/// position, 176..207 first-move window (seconds), 208..247 a registered position's reply
/// deadline (below), the rest 0.
/// After a registration from off-chain play (docs/CHANNEL.md 7.3) `lastTimestamp` is the
/// end of the response window, in the future: until then the position can only be
/// overtaken by a later registration, and no clock runs. A registered position that is
/// decided (section 8 status 1-4) carries that status in 171..173: nothing is played
/// from it; after its window `ChessReferee.finishRegistered` ends the game by it.
/// In a game from a custom start each player's first move (ply < 2) is charged from
/// `lastTimestamp + firstMoveWindow`: the joiner chooses when the game starts, so the
/// creator gets the window to notice before its clock runs (no abort: a player who never
/// moves still loses on time).
/// @dev The word is committed with the position, so every field is as trustworthy as
/// the state. A move rewrites timestamp, the mover's budget and ply, and clears the
/// offers; the other fields are fixed at join.
library ClockWord {
    /// @notice Seconds each player may overdraw its clock over a whole game (docs/REFEREE.md
    /// section 3); every budget includes it.
    uint256 internal constant GRACE_PERIOD = 15;
    uint256 internal constant WHITE_SHIFT = 40;
    uint256 internal constant BLACK_SHIFT = 72;
    uint256 internal constant INCREMENT_SHIFT = 104;
    uint256 internal constant PLY_SHIFT = 136;
    uint256 internal constant OFFER_SHIFT = 168;
    /// @dev Both offer bits, as a number below OFFER_SHIFT (white 1, black 2).
    uint256 internal constant BOTH_OFFERS = 3;
    uint256 internal constant CUSTOM_START_SHIFT = 170;
    uint256 internal constant PENDING_SHIFT = 171;
    uint256 internal constant MASK_3 = 7;
    uint256 internal constant WINDOW_SHIFT = 176;
    /// @dev A registered position's side to move's deadline by the wall clock, unclamped
    /// (docs/CHANNEL.md 7.3): what the direct reply to it is charged against. Set by the
    /// channel's registrations only, cleared by the first move played on-chain.
    uint256 internal constant REPLY_DEADLINE_SHIFT = 208;
    uint256 internal constant MASK_32 = 0xffffffff;
    uint256 internal constant MASK_40 = 0xffffffffff;

    /// @notice The clock word at join: both budgets full, ply 0, no offers.
    function start(uint256 timestamp, uint256 fullBudget, uint256 fischer, uint256 window, bool custom)
        internal
        pure
        returns (uint256)
    {
        return timestamp | (fullBudget << WHITE_SHIFT) | (fullBudget << BLACK_SHIFT) | (fischer << INCREMENT_SHIFT)
            | (custom ? uint256(1) << CUSTOM_START_SHIFT : 0) | (window << WINDOW_SHIFT);
    }

    /// @notice The clock word of a position registered from off-chain play (docs/CHANNEL.md
    /// section 7.3): the given budgets (each capped at 2^32-1) as of `timestamp`, at `plies`,
    /// no offers. The other fields are those `start` would set.
    function registered(
        uint256 timestamp,
        uint256 whiteBudget,
        uint256 blackBudget,
        uint256 fischer,
        uint256 plies,
        uint256 window,
        bool custom
    ) internal pure returns (uint256) {
        if (whiteBudget > MASK_32) whiteBudget = MASK_32;
        if (blackBudget > MASK_32) blackBudget = MASK_32;
        return timestamp | (whiteBudget << WHITE_SHIFT) | (blackBudget << BLACK_SHIFT) | (fischer << INCREMENT_SHIFT)
            | (plies << PLY_SHIFT) | (custom ? uint256(1) << CUSTOM_START_SHIFT : 0) | (window << WINDOW_SHIFT);
    }

    /// @notice `clock` (whose budgets are 0) with the given budgets, each capped at 2^32-1.
    function withBudgets(uint256 clock, uint256 whiteBudget, uint256 blackBudget) internal pure returns (uint256) {
        if (whiteBudget > MASK_32) whiteBudget = MASK_32;
        if (blackBudget > MASK_32) blackBudget = MASK_32;
        return clock | (whiteBudget << WHITE_SHIFT) | (blackBudget << BLACK_SHIFT);
    }

    /// @notice When the side to move's clock started.
    function lastTimestamp(uint256 clock) internal pure returns (uint256) {
        return clock & MASK_40;
    }

    /// @notice A side's budget as of `lastTimestamp`: seconds left plus unused grace.
    function budget(uint256 clock, bool white) internal pure returns (uint256) {
        return (clock >> (white ? WHITE_SHIFT : BLACK_SHIFT)) & MASK_32;
    }

    /// @notice The Fischer increment.
    function increment(uint256 clock) internal pure returns (uint256) {
        return (clock >> INCREMENT_SHIFT) & MASK_32;
    }

    /// @notice Moves played in this game.
    function ply(uint256 clock) internal pure returns (uint256) {
        return (clock >> PLY_SHIFT) & MASK_32;
    }

    /// @notice Whether `white` (or black) offers a draw in this position.
    function offers(uint256 clock, bool white) internal pure returns (bool) {
        return clock & offerBit(white) != 0;
    }

    /// @notice The clock word with `white`'s (or black's) draw offer set.
    function withOffer(uint256 clock, bool white) internal pure returns (uint256) {
        return clock | offerBit(white);
    }

    /// @notice The bit of `white`'s (or black's) draw offer.
    function offerBit(bool white) internal pure returns (uint256) {
        return (white ? uint256(1) : 2) << OFFER_SHIFT;
    }

    /// @notice Whether the game started from a custom position.
    function customStart(uint256 clock) internal pure returns (bool) {
        return (clock >> CUSTOM_START_SHIFT) & 1 != 0;
    }

    /// @notice Seconds each player has for its first move: before the game may be aborted
    /// (standard start), before its clock runs (custom start).
    function firstMoveWindow(uint256 clock) internal pure returns (uint256) {
        return (clock >> WINDOW_SHIFT) & MASK_32;
    }

    /// @notice The section 8 status (1-4) of a registered decided position, 0 for any other.
    function pendingStatus(uint256 clock) internal pure returns (uint256) {
        return (clock >> PENDING_SHIFT) & MASK_3;
    }

    /// @notice `clock` marked as a decided position of status `st` (1-4).
    function withPendingStatus(uint256 clock, uint256 st) internal pure returns (uint256) {
        return clock | (st << PENDING_SHIFT);
    }

    /// @notice A registered position's side to move's deadline by the wall clock (its clock
    /// starting when the registration says, its signed time plus the grace), kept even when
    /// its budget is 0: the direct reply to the registration, registered during its window,
    /// is charged against it (docs/CHANNEL.md 7.3). 0 for any other position.
    function replyDeadline(uint256 clock) internal pure returns (uint256) {
        return (clock >> REPLY_DEADLINE_SHIFT) & MASK_40;
    }

    /// @notice `clock` with the reply deadline `at` (capped at 2^40-1).
    function withReplyDeadline(uint256 clock, uint256 at) internal pure returns (uint256) {
        if (at > MASK_40) at = MASK_40;
        return clock | (at << REPLY_DEADLINE_SHIFT);
    }

    /// @notice When the side to move's time starts being charged: `lastTimestamp`, plus the
    /// first-move window for a first move (ply < 2) in a game from a custom start.
    function turnStart(uint256 clock) internal pure returns (uint256 from) {
        from = clock & MASK_40;
        if ((clock >> CUSTOM_START_SHIFT) & 1 != 0 && (clock >> PLY_SHIFT) & MASK_32 < 2) {
            from += (clock >> WINDOW_SHIFT) & MASK_32;
        }
    }

    /// @notice Last timestamp at which the side to move may still move (grace included).
    function deadline(uint256 clock, bool whiteToMove) internal pure returns (uint256) {
        return turnStart(clock) + budget(clock, whiteToMove);
    }

    /// @notice The clock word after the side to move moves at `block.timestamp` (Fischer):
    /// its budget loses the time since `turnStart` (0 before it) and gains the increment
    /// (capped at 2^32-1); timestamp now, ply + 1, offers cleared. 0 if its budget is spent,
    /// or if `block.timestamp` is before `lastTimestamp` (a registered position whose
    /// response window still runs: nobody may move yet).
    function tick(uint256 clock, bool whiteToMove) internal view returns (uint256 next) {
        uint256 shift = whiteToMove ? WHITE_SHIFT : BLACK_SHIFT;
        uint256 left = (clock >> shift) & MASK_32;
        unchecked {
            // Before `lastTimestamp` (a registered position's response window) the
            // difference wraps to a huge number: 0 as for a spent budget; the caller
            // tells the two apart (`playableFrom`).
            uint256 elapsed = block.timestamp - (clock & MASK_40);
            if ((clock >> CUSTOM_START_SHIFT) & 1 != 0 && elapsed >> 255 == 0) {
                // A custom start's first move is charged from `turnStart` only.
                uint256 from = turnStart(clock);
                elapsed = block.timestamp > from ? block.timestamp - from : 0;
            }
            // A budget of 0 is a fallen flag (a registration's, re-review finding C).
            if (left == 0 || elapsed > left) return 0;
            left = left - elapsed + ((clock >> INCREMENT_SHIFT) & MASK_32);
            if (left > MASK_32) left = MASK_32;
            uint256 nextPly = ((clock >> PLY_SHIFT) & MASK_32) + 1;
            next = clock
                & ~(MASK_40
                    | (MASK_32 << shift)
                    | (MASK_32 << PLY_SHIFT)
                    | (BOTH_OFFERS << OFFER_SHIFT)
                    | (MASK_40 << REPLY_DEADLINE_SHIFT));
            next |= block.timestamp | (left << shift) | (nextPly << PLY_SHIFT);
        }
    }
}
