// Test cases of the chessref-wasm package, run unchanged in Node
// (node.test.mjs) and in headless Chromium (browser.test.mjs).
// Each case gets the package's exports and throws on failure.

// ENCODING.md section 10, shared with the chessref-core and chessref-server tests.
import WORKED_EXAMPLES from "../../../tests/fixtures/encoding-examples.json" with { type: "json" };
// docs/CHANNEL.md section 10, shared with the Rust and Solidity tests.
import CHANNEL from "../../../tests/fixtures/channel-examples.json" with { type: "json" };

const INITIAL_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
// ENCODING.md section 4.
const INITIAL_HEX =
  "0x" +
  "fcfefdfbfafdfefc0000000400000000" +
  "ffffffffffffffff0000000000000000" +
  "00000000000000000000000000000000" +
  "00000000000000000100000000000000" +
  "00000000000000000000000000000000" +
  "00000000000000000000000000000000" +
  "01010101010101010000000000000000" +
  "04020305060302040000007400000000";

const packed = (from, to, promotion = 0) => (from << 16) | (to << 8) | promotion;

function eq(actual, expected, what = "value") {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Error(`${what}: expected ${e}, got ${a}`);
}

function ok(cond, what) {
  if (!cond) throw new Error(`${what}: expected true`);
}

function throwsKind(fn, kind, code) {
  let caught;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  if (!caught) throw new Error(`expected a ${kind} error, nothing was thrown`);
  if (!(caught instanceof Error)) throw new Error(`expected an Error, got ${caught}`);
  eq(caught.kind, kind, `error kind (${caught.message})`);
  if (code !== undefined) eq(caught.code, code, `error code (${caught.message})`);
  ok(caught.message.length > 0, "error message");
  return caught;
}

/** Applies ENCODING.md section 10 `[index] before->after` changes to a 0x hex state. */
function patch(hex, changes) {
  const bytes = [];
  for (let i = 2; i < hex.length; i += 2) bytes.push(parseInt(hex.slice(i, i + 2), 16));
  for (const [i, before, after] of changes) {
    eq(bytes[i], before, `byte ${i} before`);
    bytes[i] = after;
  }
  return "0x" + bytes.map((b) => b.toString(16).padStart(2, "0")).join("");
}

export const cases = [
  ["initial position from every constructor", (w) => {
    const a = new w.Chess();
    eq(a.fen(), INITIAL_FEN, "fen");
    eq(a.stateHex(), INITIAL_HEX, "stateHex");
    eq(w.initialStateHex(), INITIAL_HEX, "initialStateHex");
    eq(w.Chess.fromFen(INITIAL_FEN).stateHex(), INITIAL_HEX, "fromFen");
    eq(w.Chess.fromStateHex(INITIAL_HEX.slice(2)).fen(), INITIAL_FEN, "fromStateHex without 0x");
    const bytes = a.stateBytes();
    ok(bytes instanceof Uint8Array, "stateBytes is a Uint8Array");
    eq(bytes.length, 128, "128 bytes");
    eq(w.Chess.fromStateBytes(bytes).fen(), INITIAL_FEN, "fromStateBytes");
    eq([a.turn(), a.ply(), a.halfmoveClock()], ["white", 0, 0], "turn, ply, clock");
  }],

  ["legal moves in UCI, SAN and packed form", (w) => {
    const g = new w.Chess();
    const uci = g.legalMoves();
    eq(uci.length, 20, "20 moves");
    ok(uci.includes("e2e4") && uci.includes("g1f3"), "e2e4 and g1f3");
    const san = g.legalMovesSan();
    ok(san.includes("e4") && san.includes("Nf3") && san.includes("a3"), "SAN");
    const info = g.legalMoveInfos().find((m) => m.uci === "g1f3");
    eq(info, { uci: "g1f3", san: "Nf3", packed: packed(118, 85) }, "g1f3 info");
  }],

  ["dests map for board widgets", (w) => {
    const d = new w.Chess().dests();
    ok(d instanceof Map, "a Map");
    eq(d.size, 10, "10 origins");
    eq([...d.get("e2")].sort(), ["e3", "e4"], "e2");
    eq([...d.get("b1")].sort(), ["a3", "c3"], "b1");
    const promo = w.Chess.fromFen("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1").dests();
    eq(promo.get("b7"), ["b8"], "promotions listed once");
  }],

  ["check gives the section 6 code and a message", (w) => {
    const g = new w.Chess();
    eq(g.check("e2e4"), { legal: true, code: 0, reason: "OK", message: "legal move" }, "e2e4");
    const r = g.check("e2e5");
    eq([r.legal, r.code, r.reason], [false, 6, "BAD_GEOMETRY"], "e2e5");
    ok(r.message.length > 0, "message");
    eq(g.check("e7e5").code, 4, "NOT_YOUR_PIECE");
    eq(g.check("e3e4").code, 3, "EMPTY_FROM");
    eq(g.check("a1a2").code, 5, "OWN_PIECE_ON_TARGET");
    eq(g.check("a1a3").reason, "PATH_BLOCKED", "a2 blocks the rook");
  }],

  ["check of packed moves reaches codes UCI cannot", (w) => {
    const g = new w.Chess();
    eq(g.checkPacked(packed(100, 68)).code, 0, "e2e4 packed");
    eq(g.checkPacked(packed(100, 72)).reason, "OFF_BOARD", "shadow square");
    eq(g.checkPacked(packed(100, 100)).reason, "SAME_SQUARE", "same square");
    eq(g.checkPacked(0xffffff).code, 1, "all ones");
    const p = w.Chess.fromFen("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    eq(p.checkPacked(packed(17, 1, 6)).reason, "INVALID_PROMOTION", "king promotion");
    eq(p.checkPacked(packed(17, 1, 0)).reason, "PROMOTION_REQUIRED", "no promotion");
    eq(p.checkPacked(packed(17, 1, 2)).legal, true, "knight promotion");
    throwsKind(() => g.checkPacked(0x1000000), "bad_move");
  }],

  ["castling, pins and en passant codes", (w) => {
    eq(w.Chess.fromFen("4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1").check("e1g1").reason, "CASTLING_IN_CHECK", "out of check");
    eq(w.Chess.fromFen("5rk1/8/8/8/8/8/8/R3K2R w KQ - 0 1").check("e1g1").reason, "CASTLING_THROUGH_CHECK", "through check");
    eq(w.Chess.fromFen("4k3/8/8/8/8/8/8/R3K2R w Q - 0 1").check("e1g1").reason, "CASTLING_NOT_ALLOWED", "right lost");
    eq(w.Chess.fromFen("4r1k1/8/8/8/8/8/4N3/4K3 w - - 0 1").check("e2c3").reason, "KING_LEFT_IN_CHECK", "pin");
    // En passant that uncovers a check along the rank.
    eq(w.Chess.fromFen("8/8/8/K2pP2r/8/8/8/7k w - d6 0 2").check("e5d6").reason, "KING_LEFT_IN_CHECK", "ep uncovers check");
    eq(w.Chess.fromFen("8/8/8/3pP3/8/8/8/K6k w - d6 0 2").check("e5d6").legal, true, "ep legal");
    eq(w.Chess.fromFen("8/8/8/3pP3/8/8/8/K6k w - - 0 2").check("e5d6").reason, "NO_CAPTURE_TARGET", "no ep right");
  }],

  ["play follows ENCODING.md section 10 byte for byte", (w) => {
    eq(WORKED_EXAMPLES.examples.length, 4, "worked examples");
    for (const example of WORKED_EXAMPLES.examples) {
      const g = w.Chess.fromFen(example.fen);
      let expected = g.stateHex();
      for (const step of example.moves) {
        eq(g.play(step.san).uci, step.uci, `${example.name}: ${step.san}`);
        expected = patch(expected, step.changes);
        eq(g.stateHex(), expected, `${example.name}: state after ${step.san}`);
      }
      eq(g.history(), example.moves.map((m) => m.uci), `${example.name}: history`);
      eq(g.fen(), example.finalFen, `${example.name}: final FEN`);
    }
  }],

  ["check reads a move as chessref check and the HTTP server do", (w) => {
    const p = w.Chess.fromFen("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    const king = p.check("b7b8k");
    eq([king.legal, king.code, king.reason], [false, 13, "INVALID_PROMOTION"], "king promotion");
    eq(p.check("b7b8p").code, 13, "pawn promotion");
    eq(p.check("0x110106"), king, "the same move packed as 0x hex");
    eq(w.encodeMove("b7b8k"), packed(17, 1, 6), "encodeMove keeps the promotion byte");
    throwsKind(() => p.check("b7b8x"), "bad_move");
  }],

  ["move forms name captures, castling, promotions and checks", (w) => {
    const flags = (fen, uci) => w.Chess.fromFen(fen).legalMoveInfos().find((m) => m.uci === uci).flags;
    eq(flags("8/8/8/3pP3/8/8/8/K6k w - d6 0 2", "e5d6"), ["capture", "en_passant"], "en passant");
    eq(flags("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1"), ["castling"], "castling");
    eq(flags("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7b8q"), ["capture", "promotion", "check"], "promotion");
    eq(flags(INITIAL_FEN, "e2e4"), undefined, "a quiet move has none");
  }],

  ["play returns the move forms and refuses bad moves untouched", (w) => {
    const g = new w.Chess();
    eq(g.play("e2e4"), { uci: "e2e4", san: "e4", packed: packed(100, 68) }, "e2e4");
    const before = g.stateHex();
    throwsKind(() => g.play("e4e5"), "illegal_move", 4);
    throwsKind(() => g.play("Qh5"), "illegal_move");
    throwsKind(() => g.play("hello"), "bad_move");
    eq(g.stateHex(), before, "unchanged after refusals");
    eq(g.playPacked(packed(20, 52)).san, "e5", "packed e7e5");
    throwsKind(() => g.playPacked(packed(116, 8)), "illegal_move", 1);
    const amb = w.Chess.fromFen("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1");
    throwsKind(() => amb.play("Nd2"), "ambiguous_move");
    eq(amb.play("Nbd2").uci, "b1d2", "disambiguated");
    eq(g.undo(), "e7e5", "undo");
    eq(g.turn(), "black", "turn after undo");
  }],

  ["status, check, outcome and game over", (w) => {
    const g = new w.Chess();
    for (const m of ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6"]) g.play(m);
    eq([g.status(), g.statusName(), g.isOver(), g.inCheck()], [0, "ONGOING", false, false], "before mate");
    eq(g.play("Qxf7#").san, "Qxf7#", "mate SAN");
    eq([g.status(), g.statusName(), g.isOver(), g.inCheck()], [1, "CHECKMATE", true, true], "mate");
    eq(g.outcome(), { result: "1-0", termination: "CHECKMATE" }, "outcome");
    throwsKind(() => g.play("a6"), "game_over");
    eq(w.Chess.fromFen("7k/8/6Q1/6K1/8/8/8/8 b - - 0 1").statusName(), "STALEMATE", "stalemate");
    const kb = w.Chess.fromFen("4k3/8/8/8/8/8/8/4KB2 w - - 0 1");
    eq([kb.statusName(), kb.insufficientMaterial("white"), kb.insufficientMaterial("black")], ["INSUFFICIENT_MATERIAL", true, true], "K+B v K");
    eq(w.Chess.fromFen("4k3/8/8/8/8/8/8/R3K3 w - - 150 100").statusName(), "SEVENTY_FIVE_MOVES", "75 moves");
    eq(new w.Chess().outcome(), undefined, "no outcome");
  }],

  ["claimable draws and the repetition key", (w) => {
    const g = new w.Chess();
    const key0 = g.repetitionKey();
    ok(/^0x[0-9a-f]{64}$/.test(key0), "key format");
    for (const m of ["Nf3", "Nf6", "Ng1", "Ng8"]) g.play(m);
    eq(g.repetitionKey(), key0, "same position, same key");
    eq(g.repetitions(), 2, "twice");
    for (const m of ["Nf3", "Nf6", "Ng1"]) g.play(m);
    eq(g.threefoldClaimMove(), "f6g8", "claim with the move making the third occurrence");
    eq(g.claimableDraws(), { threefold: true, fiftyMoves: false }, "claim with next move");
    g.play("Ng8");
    eq([g.repetitions(), g.isFivefold()], [3, false], "three times");
    eq(g.claimableDraws().threefold, true, "threefold now");
    const fifty = w.Chess.fromFen("4k3/8/8/8/8/8/8/R3K3 w - - 99 80");
    eq(fifty.claimableDraws(), { threefold: false, fiftyMoves: true }, "fifty with next move");
    fifty.play("Ra2");
    eq([fifty.halfmoveClock(), fifty.claimableDraws().fiftyMoves], [100, true], "fifty now");
    // Clocks do not enter the key.
    eq(w.Chess.fromFen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 9 30").repetitionKey(), key0, "clock-free key");
  }],

  ["the threefold witness claimDraw takes", (w) => {
    // The shuffle's positions, start first ("" is the standard start): every key, and
    // the start's three times.
    const g = new w.Chess();
    const states = [""];
    for (const m of ["Nf3", "Nf6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8"]) {
      g.play(m);
      states.push(g.stateHex());
    }
    const keys = w.repetitionWitness(states);
    eq(keys.length, 9, "one key a position");
    eq(keys.filter((k) => k === g.repetitionKey()).length, 3, "the start three times");
    // A pawn move starts the witness again.
    g.play("e4");
    eq(w.repetitionWitness([...states, g.stateHex()]), [g.repetitionKey()], "restarted at e4");
    throwsKind(() => w.repetitionWitness(["", "00"]), "bad_state");
  }],

  ["bad FEN and state errors carry section 7 codes", (w) => {
    throwsKind(() => w.Chess.fromFen("not a fen"), "bad_fen");
    throwsKind(() => w.Chess.fromFen("4k3/8/8/8/8/8/8/K3K3 w - - 0 1"), "bad_fen", 3);
    const e = throwsKind(() => w.Chess.fromFen("4k3/8/8/8/8/8/8/r3K3 b - - 0 1"), "bad_fen", 6);
    eq(e.reason, "OPPONENT_IN_CHECK", "reason");
    throwsKind(() => w.Chess.fromStateHex("0x00"), "bad_state");
    throwsKind(() => w.Chess.fromStateHex("07" + INITIAL_HEX.slice(4)), "bad_state", 1);
    throwsKind(() => w.Chess.fromStateBytes(new Uint8Array(127)), "bad_state");
    eq(w.validateStateHex(INITIAL_HEX), { valid: true, code: 0, reason: "OK", message: "valid state" }, "valid");
    const bad = w.validateStateHex("07" + INITIAL_HEX.slice(4));
    eq([bad.valid, bad.code, bad.reason], [false, 1, "BAD_PIECE_CODE"], "bad piece");
    eq(w.validateStateHex("xyz").code, -1, "bad hex");
  }],

  ["move and square encoding helpers", (w) => {
    eq(w.encodeMove("e2e4"), 0x644400, "e2e4");
    eq(w.encodeMove("b7b8n"), packed(17, 1, 2), "underpromotion");
    eq(w.decodeMove(0x644400), { from: 100, to: 68, promotion: 0 }, "decode");
    eq(w.packedToUci(packed(17, 1, 5)), "b7b8q", "packed to UCI");
    eq(w.packedToUci(packed(100, 72)), undefined, "off board");
    eq(w.packedToUci(packed(17, 1, 6)), undefined, "bad promotion");
    eq([w.squareIndex("a8"), w.squareIndex("h8"), w.squareIndex("e1"), w.squareIndex("h1")], [0, 7, 116, 119], "squares");
    eq([w.squareName(68), w.squareName(8)], ["e4", undefined], "names");
    throwsKind(() => w.squareIndex("z9"), "bad_square");
    throwsKind(() => w.encodeMove("e2"), "bad_move");
    eq([w.rejectionName(0), w.rejectionName(14), w.rejectionName(15)], ["OK", "KING_LEFT_IN_CHECK", undefined], "names");
  }],

  ["board, pieces, clone and PGN", (w) => {
    const g = new w.Chess();
    const b = g.board();
    eq(b.length, 64, "64 squares");
    eq([b[0], b[4], b[60], b[63], b[36]], ["r", "k", "K", "R", ""], "a8 e8 e1 h1 e4");
    eq([g.pieceAt("e2"), g.pieceAt("e4")], ["P", undefined], "pieceAt");
    const c = g.clone();
    c.play("e4");
    eq([g.ply(), c.ply()], [0, 1], "clone is independent");
    ok(c.pgn().includes("1. e4"), "PGN movetext");
  }],
  ["channel: typed data, digests and signers of the CHANNEL.md v2 examples", (w) => {
    const domain = { chainId: CHANNEL.domain.chainId, verifyingContract: CHANNEL.domain.verifyingContract };
    const typed = (kind, m, what) => {
      const t = w.channelTypedData(kind, domain, m);
      eq([t.hash, t.digest], [m.hash, m.digest], what);
      eq(t.primaryType, kind, `${what}: primaryType`);
      eq(`${kind}(${t.types[kind].map((f) => `${f.type} ${f.name}`).join(",")})`, CHANNEL.types[kind].type, `${what}: type`);
      return t;
    };
    const signedBy = (m, what) => eq(w.channelRecover(m.digest, m.signature), m.signer, `signer of ${what}`);
    typed("Move", CHANNEL.start, "start");
    for (const m of CHANNEL.moves) {
      eq(typed("Move", m, `ply ${m.ply}`).message.timestamp, m.timestamp, `ply ${m.ply} timestamp`);
      signedBy(m, `ply ${m.ply}`);
      eq(typed("Receipt", m.receipt, `receipt of ply ${m.ply}`).message.seenAt, m.receipt.seenAt, "seenAt");
      signedBy(m.receipt, `receipt of ply ${m.ply}`);
      eq(w.channelReceipt(m, m.receipt.seenAt).position, m.hash, `receipt of ply ${m.ply} names it`);
      eq(w.channelPosition(m), m.hash, `position of ply ${m.ply}`);
    }
    for (const d of CHANNEL.delegations) {
      eq(typed("Delegation", d, d.name).message.expires, d.expires, `${d.name} expires`);
      signedBy(d, d.name);
    }
    typed("Resignation", CHANNEL.resignation, "resignation");
    signedBy(CHANNEL.resignation, "resignation");
    typed("Result", CHANNEL.result, "result");
    signedBy({ ...CHANNEL.result, ...CHANNEL.result.white }, "white's result");
    signedBy({ ...CHANNEL.result, ...CHANNEL.result.black }, "black's result");
    typed("DrawOffer", CHANNEL.drawOffer, "draw offer");
    signedBy(CHANNEL.drawOffer, "draw offer");
    const n = CHANNEL.negative;
    typed("Resignation", n.expiredKey.resignation, "expired key's resignation");
    typed("Result", n.lapsedResult.result, "lapsed result");
    for (const m of [n.equivocation.a, n.equivocation.b, n.wrongSigner]) typed("Move", m, `negative ply ${m.ply}`);
    const other = { chainId: n.otherChain.chainId, verifyingContract: CHANNEL.domain.verifyingContract };
    eq(w.channelTypedData("Move", other, CHANNEL.moves[0]).digest, n.otherChain.digest, "other chain");
    throwsKind(() => w.channelRecover(n.highS.digest, n.highS.signature), "bad_signature");
    // A session key signs in the page: the very bytes the Rust signer wrote.
    const session = CHANNEL.keys.whiteSession1;
    eq(w.channelAddressOf(session.privateKey), session.address, "session key address");
    eq(w.channelSign(session.privateKey, CHANNEL.moves[0].digest), CHANNEL.moves[0].signature, "session key signature");
    throwsKind(() => w.channelSign("0x00", CHANNEL.moves[0].digest), "bad_key");
    throwsKind(() => w.channelTypedData("Draw", domain, {}), "bad_message");
    const v1 = { ...CHANNEL.moves[0] };
    delete v1.timestamp;
    throwsKind(() => w.channelTypedData("Move", domain, v1), "bad_message");
  }],

  ["channel: successors with timestamps, transition codes and whole transcripts", (w) => {
    const game = { ...CHANNEL.game };
    delete game.startState;
    const start = w.channelStartMove(game);
    eq(w.channelTypedData("Move", CHANNEL.domain, start).hash, CHANNEL.start.hash, "start move");
    let previous = start;
    for (const m of CHANNEL.moves) {
      const next = w.channelSuccessor(previous, m.uci, m.timestamp, CHANNEL.game.increment);
      eq(w.channelTypedData("Move", CHANNEL.domain, next).hash, m.hash, `successor ${m.uci}`);
      w.channelCheckSuccessor(previous, m, CHANNEL.game.increment);
      previous = m;
    }
    const first = CHANNEL.moves[0];
    throwsKind(() => w.channelSuccessor(first, "e7e4", first.timestamp + 1, 2), "invalid_transition", 6);
    throwsKind(() => w.channelSuccessor(CHANNEL.moves[2], "e8e7", CHANNEL.moves[2].timestamp - 1, 2), "invalid_transition", 4);
    for (const t of CHANNEL.negative.transitions) {
      const e = throwsKind(() => w.channelCheckSuccessor(t.previous, t.move, CHANNEL.game.increment), "invalid_transition", t.code);
      eq(e.ruleCode, t.ruleCode, `${t.name}: rule code`);
    }
    const report = w.channelVerifyTranscript(CHANNEL, CHANNEL.now);
    eq([report.validPlies, report.error, report.status], [4, null, 1], "valid, mate");
    eq([report.settlement.call, report.settlement.ends], ["settle", [2, 8]], "settled by the signed result");
    ok(report.settlement.calldata.startsWith("0x"), "calldata");
    const resigned = { ...CHANNEL, result: undefined };
    const r = w.channelVerifyTranscript(resigned, CHANNEL.now);
    eq([r.error, r.settlement.call, r.settlement.ends], [null, "resignBySignature", [2, 5]], "resigned");
    const lapsed = w.channelVerifyTranscript({ ...CHANNEL, result: CHANNEL.negative.lapsedResult.result }, CHANNEL.now);
    ok(/lapsed/.test(lapsed.error), "a lapsed result");
    eq(lapsed.settlement.call, "register", "registered instead");
    const expired = { ...resigned, resignation: CHANNEL.negative.expiredKey.resignation };
    ok(/expired/.test(w.channelVerifyTranscript(expired, CHANNEL.negative.expiredKey.now).error), "an expired key");
    throwsKind(() => w.channelVerifyTranscript({ moves: 3 }, CHANNEL.now), "bad_message");
    throwsKind(() => w.channelVerifyTranscript(CHANNEL), "bad_message");
  }],
];
