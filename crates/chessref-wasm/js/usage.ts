// Compiled with `tsc --noEmit` by types.test.mjs: the generated declarations
// type the package's API as documented (a wrong type here fails the test).
import init, {
  Chess, encodeMove, decodeMove, packedToUci, squareIndex, squareName, initialStateHex, validateStateHex,
  rejectionName, type CheckResult, type MoveInfo, type ClaimableDraws, type Outcome, type RawMove,
  type StateValidation, type ChessrefError,
  channelStartMove, channelSuccessor, channelCheckSuccessor, channelTypedData, channelRecover, channelSign,
  channelAddressOf, channelVerifyTranscript, type ChannelDomain, type ChannelGame, type ChannelMove,
  type ChannelTypedData, type TranscriptReport,
} from "../pkg/web/chessref_wasm.js";

/** A page's side of an off-chain game: build, sign and check moves with a session key. */
export function channelUsage(domain: ChannelDomain, game: ChannelGame, sessionKey: string): string {
  const start: ChannelMove = channelStartMove(game);
  const next: ChannelMove = channelSuccessor(start, "e2e4", 3, game.increment);
  const typed: ChannelTypedData = channelTypedData("Move", domain, next);
  const signature: string = channelSign(sessionKey, typed.digest);
  const signer: string = channelRecover(typed.digest, signature);
  channelCheckSuccessor(start, { ...next, signature }, game.increment);
  const delegation: ChannelTypedData = channelTypedData("Delegation", domain, {
    gameId: game.gameId, sessionKey: channelAddressOf(sessionKey), firstPly: 1, lastPly: 4294967295,
  });
  const report: TranscriptReport = channelVerifyTranscript({ domain, game, moves: [{ ...next, signature }] });
  const ends: [number, number] | null = report.settlement.ends;
  return `${signer} ${delegation.primaryType} ${report.validPlies} ${ends}`;
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
    return `${kind} ${err.code ?? ""}`;
  }
  return [code, legal, raw.reason, dests.size, infos.length, uci.length, draws.threefold, outcome?.result, decoded.from,
    validation.valid, bytes.length, name, square, back, game.stateHex(), game.statusName(), game.inCheck()].join(",");
}
