// Compiled with `tsc --noEmit` by types.test.mjs: the generated declarations
// type the package's API as documented (a wrong type here fails the test).
import init, {
  Chess, encodeMove, decodeMove, packedToUci, squareIndex, squareName, initialStateHex, validateStateHex,
  rejectionName, type CheckResult, type MoveInfo, type ClaimableDraws, type Outcome, type RawMove,
  type StateValidation, type ChessrefError,
  channelStartMove, channelSuccessor, channelCheckSuccessor, channelTypedData, channelRecover, channelSign,
  channelAddressOf, channelVerifyTranscript, channelReceipt, channelPosition, type ChannelDomain, type ChannelGame,
  type ChannelMove, type ChannelTypedData, type TranscriptReport, type ChannelDelegation, type ChannelReceipt,
  type ChannelResignation, type ChannelDrawOffer, type ChannelResult, type ChannelTranscript, type ChannelPins,
  type ChannelMessageType, ChannelPlayer,
  channelRegistrationPair, channelRegistration, channelFirstShown, type ChannelSignedMove, type ChannelAuth,
  type ChannelRegistration, type ChannelSettlement,
} from "../pkg/web/chessref_wasm.js";

/** A page's side of an off-chain game (protocol v2): build, stamp, sign and check moves
 * with a session key, acknowledge them, and verify a transcript at the page's clock. */
export function channelUsage(domain: ChannelDomain, game: ChannelGame, sessionKey: string, now: number): string {
  const start: ChannelMove = channelStartMove(game);
  const next: ChannelMove = channelSuccessor(start, "e2e4", now, game.increment);
  const stamped: number = next.timestamp;
  const typed: ChannelTypedData = channelTypedData("Move", domain, next);
  const signature: string = channelSign(sessionKey, typed.digest);
  const signer: string = channelRecover(typed.digest, signature);
  channelCheckSuccessor(start, { ...next, signature }, game.increment);
  const later: ChannelMove = channelSuccessor(next, "e7e5", BigInt(now + 2), game.increment);
  const receipt: ChannelReceipt = channelReceipt(next, now + 1);
  const position: string = channelPosition(next);
  const delegationMessage: ChannelDelegation = {
    gameId: game.gameId, sessionKey: channelAddressOf(sessionKey), firstPly: 1, lastPly: 4294967295, expires: now + 3600,
  };
  const delegation: ChannelTypedData = channelTypedData("Delegation", domain, delegationMessage);
  const resignation: ChannelResignation = { gameId: game.gameId, ply: next.ply, position };
  const offer: ChannelDrawOffer = { gameId: game.gameId, ply: next.ply, position };
  const result: ChannelResult = { gameId: game.gameId, ply: next.ply, position, result: 3 };
  const kinds: ChannelMessageType[] = ["Resignation", "DrawOffer", "Result", "Receipt"];
  const digests: string[] = [resignation, offer, result, receipt].map((m, i) => channelTypedData(kinds[i], domain, m).digest);
  const transcript: ChannelTranscript = {
    domain, game, moves: [{ ...next, signature, delegation: -1, receipt: { seenAt: receipt.seenAt, signature, delegation: -1 } }],
  };
  const pins: ChannelPins = { pinned: [{ signer, digest: delegation.digest }], revocations: [] };
  const report: TranscriptReport = channelVerifyTranscript(transcript, now, pins);
  const atBigInt: TranscriptReport = channelVerifyTranscript(transcript, BigInt(now));
  const ends: [number, number] | null = report.settlement.ends;
  return `${signer} ${stamped} ${later.ply} ${delegation.primaryType} ${digests.length} ${report.validPlies} ${ends} ${atBigInt.error}`;
}

export async function usage(stateHex: string): Promise<string> {
  await init();
  const game: Chess = Chess.fromStateHex(stateHex);
  const verdict: CheckResult = game.check("e2e4");
  const code: number = verdict.code;
  const legal: boolean = verdict.legal;
  const raw: CheckResult = game.checkPacked(encodeMove("e2e4"));
  const dests: Map<string, string[]> = game.dests();
  const played: MoveInfo = game.play("e4");
  const packed: number = played.packed;
  const infos: MoveInfo[] = game.legalMoveInfos();
  const uci: string[] = game.legalMoves();
  const draws: ClaimableDraws = game.claimableDraws();
  const outcome: Outcome | undefined = game.outcome();
  const decoded: RawMove = decodeMove(packed);
  const validation: StateValidation = validateStateHex(initialStateHex());
  const bytes: Uint8Array = game.stateBytes();
  const name: string | undefined = rejectionName(14);
  const index: number = squareIndex("e4");
  const square: string | undefined = squareName(index);
  const back: string | undefined = packedToUci(packed);
  try {
    game.play("e4e5");
  } catch (e) {
    const err = e as ChessrefError;
    const kind: ChessrefError["kind"] = err.kind;
    const transition: boolean = kind === "invalid_transition";
    const rule: number | undefined = err.ruleCode;
    return `${kind} ${err.code ?? ""} ${transition} ${rule ?? ""}`;
  }
  return [code, legal, raw.reason, dests.size, infos.length, uci.length, draws.threefold, outcome?.result, decoded.from,
    validation.valid, bytes.length, name, square, back, game.stateHex(), game.statusName(), game.inCheck()].join(",");
}

/** When a page registers its own unacknowledged move by itself: `undefined` once the
 * opponent's receipt came. */
export function autoRegisterUsage(player: ChannelPlayer, sentAt: number): number | undefined {
  const at: number | undefined = player.autoRegisterAt(sentAt);
  return at ?? player.autoRegisterAt(BigInt(sentAt));
}

/** A page answering a frozen registration (issue 27): the registration transaction's pair
 * taken in from its showing, then the register that answers it, if the player holds one. */
export function frozenUsage(player: ChannelPlayer, calldata: string, inner: string, clock: bigint, at: number, now: number): string | null {
  const pair: [ChannelSignedMove, ChannelSignedMove] | null = channelRegistrationPair(calldata);
  const registration: ChannelRegistration = channelRegistration(clock);
  for (const { move, auth } of pair ?? []) {
    const signed: ChannelAuth = auth;
    const shownAt: number = channelFirstShown(at, 0, BigInt(0));
    const kind: string = player.receiveShown(move, signed, shownAt, now).kind;
    if (kind === "move" && registration.windowEnd < now) return null;
  }
  const answer: ChannelSettlement | null = player.registerAnswering(inner, clock, now);
  return answer === null ? null : `${answer.call}:${answer.calldata}:${registration.replyDeadline}`;
}
