// Compiled with `tsc --noEmit` by types.test.mjs: the generated declarations
// type the package's API as documented (a wrong type here fails the test).
import init, {
  Chess, encodeMove, decodeMove, packedToUci, squareIndex, squareName, initialStateHex, validateStateHex,
  rejectionName, type CheckResult, type MoveInfo, type ClaimableDraws, type Outcome, type RawMove,
  type StateValidation, type ChessrefError,
} from "../pkg/web/chessref_wasm.js";

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
