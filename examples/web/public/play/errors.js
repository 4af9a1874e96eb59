// @ts-check
// What a failure means to a player: the referee's rule codes (ENCODING.md section 6) and
// the contracts' custom errors in plain sentences, the raw code kept for a detail, and
// which refusals are harmless (a relayed message that is merely out of date) and shown
// not at all. Pure: unit-tested under Node (test/unit.test.mjs).

const PIECES = { p: "pawn", n: "knight", b: "bishop", r: "rook", q: "queen", k: "king" };

/** The piece's name from its letter ("B", "n"), or "piece". */
export function pieceName(letter) {
  return PIECES[String(letter || "").toLowerCase()] || "piece";
}

/** A move the referee would refuse with IllegalMove(`code`) (ENCODING.md section 6), as a
 * sentence: `piece` is the letter on the from-square, `from` and `to` the squares.
 * @param {number | string} code
 * @param {{ piece?: string | null, from?: string, to?: string }} [where] */
export function illegalMoveSentence(code, { piece, from, to } = {}) {
  const name = pieceName(piece);
  switch (Number(code)) {
    case 1: return "That square is off the board.";
    case 2: return "A piece has to move to another square.";
    case 3: return `There is no piece on ${from || "that square"}.`;
    case 4: return "That is your opponent's piece.";
    case 5: return `One of your own pieces is already on ${to || "that square"}.`;
    case 6: return `A ${name} cannot move that way.`;
    case 7: return name === "pawn" ? "That pawn is blocked." : `That ${name}'s path is blocked.`;
    case 8: return "A pawn moves diagonally only to capture.";
    case 9: return "You can no longer castle on that side.";
    case 10: return "You cannot castle while in check.";
    case 11: return "You cannot castle through an attacked square.";
    case 12: return "A pawn that reaches the last rank must be promoted.";
    case 13: return "A pawn promotes to a queen, rook, bishop or knight, and only on the last rank.";
    case 14: return "That would leave your king in check.";
    default: return "That move is not allowed.";
  }
}

/** The referee's and the channel's custom errors a player can meet, as sentences. */
const REVERTS = {
  NotCreator: "Only the player who created this game can cancel it.",
  GameNotOpen: "This game is no longer open: someone joined it, or it was cancelled.",
  GameNotRunning: "This game is not running any more.",
  NotInvited: "This game was created for another opponent.",
  CannotPlaySelf: "You cannot play against yourself.",
  WrongTerms: "The game's terms changed since the lobby showed them: look at them again.",
  WrongEthAmount: "The amount sent does not match the stake.",
  BadTimeControl: "That time control is not allowed.",
  BadResponseWindow: "That response window is not allowed.",
  NotAPlayer: "Only the game's two players can do that.",
  NotYourTurn: "It is not your move.",
  StalePosition: "The game moved on since this page read it: try again.",
  TimeUp: "Your time is up.",
  TimeNotUp: "Your opponent still has time on the clock.",
  NoDrawOffer: "There is no draw offer to accept.",
  CannotAcceptOwnOffer: "You cannot accept your own draw offer.",
  DrawNotClaimable: "No draw can be claimed in this position.",
  NothingToWithdraw: "You have nothing to withdraw.",
  StaleRegistration: "A later position is already registered on-chain.",
  RegistrationClosed: "The time to register or answer has passed.",
  AlreadyOnChain: "This game is already being played on-chain.",
  FlagFell: "The clock ran out before this could be registered.",
  StaleMove: "That move is too old to register now.",
};

/** The tournament's custom errors a player can meet (IChessTournament.sol), as sentences.
 * Some share a name with the referee's and mean something else here (RegistrationClosed:
 * entries, not a channel registration), so they are a table of their own. */
const TOURNAMENT_REVERTS = {
  UnknownEvent: "There is no such event.",
  RegistrationClosed: "Entries to this event are closed: it is full, past its deadline, or cancelled.",
  AlreadyEntered: "You are already entered in this event.",
  NotEntered: "You are not entered in this event.",
  WrongEthAmount: "The amount sent is not the entry fee.",
  TokenShortPaid: "The tournament received less than the entry fee: this token keeps part of each transfer, and the event cannot take it.",
  NotFull: "The event is not full yet: the bracket is drawn once every place is taken.",
  AlreadyDrawn: "The bracket is already drawn.",
  NotDrawnYet: "The block whose hash draws the bracket is not mined yet: try again in a few seconds.",
  BadMatch: "There is no such match in this event.",
  PlayersNotKnown: "This match's players are not known yet: a game before it is still being played.",
  AlreadyStarted: "This game was already started.",
  NotRunning: "This match is not being played now.",
  GameNotEnded: "A game this depends on has not ended yet.",
  UnexpectedResult: "That game ended in a way the bracket cannot use.",
  LotNotArmed: "A drawn game has to be reported first: then a lot decides who goes on.",
  LotPending: "The lot is decided by the hash of a block that is not mined yet: try again in a few seconds.",
  NoLot: "This match has no lot to decide.",
  NotFinished: "The event is not over yet: prizes are paid once the final is decided.",
  AlreadyClaimed: "This was already claimed.",
  NotOrganiser: "Only the event's organiser can do that.",
  HasEntrants: "Players have entered: the event can no longer be cancelled.",
  NothingToWithdraw: "You have nothing to withdraw.",
  NotAbandoned: "The game does not count as abandoned yet.",
  Reentrancy: "The tournament refused a nested call.",
};

/** A contract's custom error `name` as a sentence; `contract`: "tournament" reads the
 * tournament's table first. */
export function revertSentence(name, contract = "referee") {
  if (contract === "tournament") return TOURNAMENT_REVERTS[name] || REVERTS[name] || "The tournament refused this.";
  return REVERTS[name] || "The referee refused this.";
}

/** A failure `e` as `{sentence, detail}`: `named` is the contract's custom error it
 * carries ("Name(args)"), if any, of `contract` ("referee" or "tournament"); the detail
 * is what a developer would want. */
export function explain(e, named = null, contract = "referee") {
  if (named) {
    const name = named.replace(/\(.*$/, "");
    return { sentence: revertSentence(name, contract), detail: `the contract refuses: ${named}` };
  }
  const code = e?.code ?? e?.info?.error?.code;
  const raw = String(e?.shortMessage || e?.reason || e?.message || e);
  if (code === "ACTION_REJECTED" || code === 4001) return { sentence: "You declined in your wallet.", detail: raw };
  if (code === "INSUFFICIENT_FUNDS") return { sentence: "Your wallet does not hold enough ETH for this.", detail: raw };
  if (code === "NETWORK_ERROR" || /Failed to fetch|NetworkError/.test(raw)) {
    return { sentence: "The server or the chain cannot be reached: check your connection.", detail: raw };
  }
  return { sentence: raw, detail: "" };
}

/** Whether a relayed message the seat refused is harmless: a draw offer or one side's
 * result that names a position older than the latest move held (the relay replays its
 * backlog after a reload; an offer is moot once a move followed it). */
export function outdated(message, latestPly) {
  return (message?.type === "drawOffer" || message?.type === "result") && Number(message.ply) < Number(latestPly);
}
