// docs/CHANNEL.md (protocol v2) worked examples, byte for byte, three ways: what the
// fixture says (tests/fixtures/channel-examples.json, written by the Rust crate and read
// by the Solidity tests too), what the WASM package computes (pkg/, ../build-pkg.sh),
// and what ethers v6 computes on its own (an EIP-712 implementation independent of
// both): the domain separator, type strings and hashes, every hashStruct and digest,
// every signature's signer (and the low-s rule), the settling calls' calldata, and the
// transcript verdicts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import {
  TypedDataEncoder, recoverAddress, keccak256, toUtf8Bytes, Signature, SigningKey, Wallet, Interface, getAddress, concat,
} from "ethers";

import FIXTURE from "../../../tests/fixtures/channel-examples.json" with { type: "json" };

const require = createRequire(import.meta.url);
const w = require(new URL("../pkg/", import.meta.url).pathname);

const HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const KINDS = ["Move", "Delegation", "Resignation", "Result", "DrawOffer", "Receipt"];

/** ethers types from the fixture's own type strings ("Move(uint256 gameId,...)"). */
const TYPES = Object.fromEntries(
  Object.entries(FIXTURE.types).map(([name, { type }]) => {
    const members = type.slice(name.length + 1, -1).split(",");
    return [name, members.map((m) => ({ type: m.split(" ")[0], name: m.split(" ")[1] }))];
  }),
);

const ethersDomain = (chainId = FIXTURE.domain.chainId) => ({
  name: FIXTURE.domain.name,
  version: FIXTURE.domain.version,
  chainId,
  verifyingContract: FIXTURE.domain.verifyingContract,
});
const domain = { chainId: FIXTURE.domain.chainId, verifyingContract: FIXTURE.domain.verifyingContract };

/** The message's own members, from a fixture entry (which carries more). */
const valueOf = (kind, entry) => Object.fromEntries(TYPES[kind].map(({ name }) => [name, entry[name]]));
const hashOf = (kind, value) => TypedDataEncoder.hashStruct(kind, { [kind]: TYPES[kind] }, value);
const digestOf = (kind, value, chainId) => TypedDataEncoder.hash(ethersDomain(chainId), { [kind]: TYPES[kind] }, value);

const other = (side) => (side === "white" ? "black" : "white");
/** Who must have signed: the player's own address, or the delegated session key. */
const expectedSigner = (side, delegation) =>
  delegation < 0 ? FIXTURE.game[side] : FIXTURE.delegations[delegation].sessionKey;

/** Every hashed or signed example: [kind, name, entry, [[signature, signer, side, delegation]]]. */
function examples() {
  const n = FIXTURE.negative;
  const signed = (e, side) => [[e.signature, e.signer, side, e.delegation]];
  const all = [["Move", "start", FIXTURE.start, []]];
  for (const m of FIXTURE.moves) {
    all.push(["Move", `ply ${m.ply}`, m, signed(m, m.author)]);
    all.push(["Receipt", `receipt of ply ${m.ply}`, m.receipt, signed(m.receipt, other(m.author))]);
  }
  for (const d of FIXTURE.delegations) all.push(["Delegation", d.name, d, [[d.signature, d.signer, d.player, -1]]]);
  const r = FIXTURE.result;
  all.push(["Resignation", "resignation", FIXTURE.resignation, signed(FIXTURE.resignation, FIXTURE.resignation.by)]);
  all.push(["Result", "result", r, [...signed(r.white, "white"), ...signed(r.black, "black")]]);
  all.push(["DrawOffer", "draw offer", FIXTURE.drawOffer, signed(FIXTURE.drawOffer, FIXTURE.drawOffer.by)]);
  for (const key of ["a", "b"]) all.push(["Move", `equivocation ${key}`, n.equivocation[key], signed(n.equivocation[key], "white")]);
  const ek = n.expiredKey.resignation;
  all.push(["Resignation", "expired key", ek, signed(ek, ek.by)]);
  const lr = n.lapsedResult.result;
  all.push(["Result", "lapsed result", lr, [...signed(lr.white, "white"), ...signed(lr.black, "black")]]);
  // Signed by white for black's move: the signature recovers, to the wrong player.
  all.push(["Move", "wrong signer", n.wrongSigner, [[n.wrongSigner.signature, n.wrongSigner.signer, "white", -1]]]);
  for (const t of n.transitions) {
    all.push(["Move", `${t.name}: previous`, t.previous, []]);
    all.push(["Move", `${t.name}: move`, t.move, signed(t.move, t.move.author)]);
  }
  return all;
}

function assertLowS(signature, what) {
  const s = BigInt("0x" + signature.slice(2 + 64, 2 + 128));
  assert.ok(s <= HALF_ORDER, `${what}: s must be in the lower half`);
  const v = parseInt(signature.slice(-2), 16);
  assert.ok(v === 27 || v === 28, `${what}: v must be 27 or 28, is ${v}`);
}

function throwsKind(fn, kind, pattern) {
  let caught;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof Error, `expected a ${kind} error, got ${caught}`);
  assert.equal(caught.kind, kind, caught.message);
  if (pattern) assert.match(caught.message, pattern);
  return caught;
}

const clone = (x) => JSON.parse(JSON.stringify(x));

test("domain separator, type strings and type hashes: fixture = ethers = WASM", () => {
  assert.equal(TypedDataEncoder.hashDomain(ethersDomain()), FIXTURE.domain.separator);
  assert.equal(FIXTURE.domain.version, "2");
  assert.deepEqual(Object.keys(FIXTURE.types).sort(), [...KINDS].sort());
  for (const [name, t] of Object.entries(FIXTURE.types)) {
    assert.equal(TypedDataEncoder.from({ [name]: TYPES[name] }).encodeType(name), t.type, name);
    assert.equal(keccak256(toUtf8Bytes(t.type)), t.typeHash, name);
  }
  for (const [kind, name, entry] of examples()) {
    const typed = w.channelTypedData(kind, domain, entry);
    assert.deepEqual(typed.types, { [kind]: TYPES[kind] }, `${name}: WASM types`);
    assert.deepEqual(typed.domain, ethersDomain(), `${name}: WASM domain`);
    assert.equal(typed.primaryType, kind);
  }
});

test("every example: hashStruct and digest by WASM = fixture = ethers, on fixture values and on WASM's typed data", () => {
  let count = 0;
  for (const [kind, name, entry] of examples()) {
    const typed = w.channelTypedData(kind, domain, entry);
    const value = valueOf(kind, entry);
    assert.equal(typed.hash, entry.hash, `${name}: WASM hash`);
    assert.equal(typed.digest, entry.digest, `${name}: WASM digest`);
    assert.equal(hashOf(kind, value), entry.hash, `${name}: ethers hash`);
    assert.equal(digestOf(kind, value), entry.digest, `${name}: ethers digest`);
    // What a wallet signs (ethers signTypedData(domain, types, message)) is this digest.
    assert.equal(TypedDataEncoder.hash(typed.domain, typed.types, typed.message), entry.digest, `${name}: typed data`);
    // Every member, nothing else (in serde_json's order: ethers follows `types`).
    assert.deepEqual(Object.keys(typed.message).sort(), TYPES[kind].map((m) => m.name).sort(), `${name}: members`);
    count++;
  }
  // The start, 4 moves and their receipts, 4 delegations, the resignation, result and
  // draw offer, and 27 negative examples (11 transitions of two moves each).
  assert.equal(count, 43, "every hashed example of the fixture");
  // Positions: what a receipt, resignation, result or draw offer names.
  assert.equal(FIXTURE.moves[0].previous, FIXTURE.start.hash);
  for (const [i, m] of FIXTURE.moves.entries()) {
    if (i > 0) assert.equal(m.previous, FIXTURE.moves[i - 1].hash, `ply ${m.ply} chains to ply ${i}`);
    assert.equal(w.channelPosition(m), m.hash);
    assert.equal(m.receipt.position, m.hash, `receipt of ply ${m.ply}`);
    assert.deepEqual(w.channelReceipt(m, m.receipt.seenAt), {
      gameId: String(m.gameId), ply: m.ply, position: m.hash, seenAt: m.receipt.seenAt,
    });
  }
  const last = FIXTURE.moves.at(-1);
  for (const end of [FIXTURE.resignation, FIXTURE.result, FIXTURE.negative.expiredKey.resignation]) {
    assert.equal(end.position, last.hash, "a signed end names the latest position");
  }
  assert.equal(FIXTURE.drawOffer.position, FIXTURE.moves[FIXTURE.drawOffer.ply - 1].hash);
});

test("every signature recovers to the fixture's signer (WASM and ethers), on behalf of the right player, low s", () => {
  let count = 0;
  for (const [, name, entry, signatures] of examples()) {
    for (const [signature, signer, side, delegation] of signatures) {
      assert.equal(w.channelRecover(entry.digest, signature), signer, `${name}: WASM signer`);
      assert.equal(recoverAddress(entry.digest, signature), signer, `${name}: ethers signer`);
      assertLowS(signature, name);
      if (name !== "wrong signer") assert.equal(signer, expectedSigner(side, delegation), `${name}: on behalf of ${side}`);
      count++;
    }
  }
  assert.equal(count, 33, "every signature of the fixture");
  assert.notEqual(FIXTURE.negative.wrongSigner.signer, FIXTURE.game.black, "black's move signed by white");
});

test("delegations: v2 expiry and ranges, and the moves and receipts they sign inside them", () => {
  for (const d of FIXTURE.delegations) {
    assert.equal(typeof d.expires, "number", `${d.name}: expires`);
    assert.equal(d.signer, FIXTURE.game[d.player], `${d.name}: signed by the player's wallet`);
    assert.equal(getAddress(d.sessionKey), FIXTURE.keys[d.name].address, `${d.name}: its key`);
  }
  const covered = (d, ply, at) => d.firstPly <= ply && ply <= d.lastPly && at <= d.expires;
  for (const m of FIXTURE.moves) {
    if (m.delegation >= 0) assert.ok(covered(FIXTURE.delegations[m.delegation], m.ply, m.timestamp), `ply ${m.ply}`);
    const r = m.receipt;
    if (r.delegation >= 0) assert.ok(covered(FIXTURE.delegations[r.delegation], r.ply, r.seenAt), `receipt ${r.ply}`);
    assert.ok(m.timestamp <= r.seenAt, `receipt of ply ${m.ply} after its stamp`);
  }
  const expired = FIXTURE.delegations[FIXTURE.negative.expiredKey.resignation.delegation];
  assert.ok(FIXTURE.negative.expiredKey.now > expired.expires, "judged after its expiry");
  assert.ok(FIXTURE.moves.at(-1).timestamp < expired.expires);
});

test("keys sign the fixture's bytes: WASM channelSign = ethers SigningKey = ethers Wallet.signTypedData", async () => {
  const keyOf = (address) => Object.values(FIXTURE.keys).find((k) => k.address === address);
  for (const [kind, name, entry, signatures] of examples()) {
    const typed = w.channelTypedData(kind, domain, entry);
    for (const [signature, signer] of signatures) {
      const key = keyOf(signer);
      assert.ok(key, `${name}: a fixture key signed it`);
      assert.equal(w.channelAddressOf(key.privateKey), signer);
      assert.equal(w.channelSign(key.privateKey, entry.digest), signature, `${name}: WASM signature`);
      assert.equal(new SigningKey(key.privateKey).sign(entry.digest).serialized, signature, `${name}: ethers signature`);
      const wallet = new Wallet(key.privateKey);
      assert.equal(await wallet.signTypedData(typed.domain, typed.types, typed.message), signature, `${name}: signTypedData`);
    }
  }
  throwsKind(() => w.channelSign("0x00", FIXTURE.moves[0].digest), "bad_key");
  throwsKind(() => w.channelAddressOf("0x" + "00".repeat(32)), "bad_key");
});

test("successors: the start move and every move rebuilt with its timestamp, checked, with its receipt", () => {
  const game = { ...FIXTURE.game };
  delete game.startState;
  const start = w.channelStartMove(game);
  assert.equal(start.timestamp, 0);
  assert.equal(w.channelTypedData("Move", domain, start).hash, FIXTURE.start.hash, "start move");
  assert.equal(w.channelTypedData("Move", domain, w.channelStartMove(FIXTURE.game)).hash, FIXTURE.start.hash);
  let previous = start;
  for (const m of FIXTURE.moves) {
    const next = w.channelSuccessor(previous, m.uci, m.timestamp, FIXTURE.game.increment);
    assert.deepEqual(next, { ...valueOf("Move", m), gameId: String(m.gameId) }, `successor ${m.uci}`);
    assert.equal(w.channelTypedData("Move", domain, next).hash, m.hash);
    w.channelCheckSuccessor(previous, m, FIXTURE.game.increment);
    previous = m;
  }
  // BigInt times are accepted, and give the same move.
  const bigint = w.channelSuccessor(start, FIXTURE.moves[0].uci, BigInt(FIXTURE.moves[0].timestamp), FIXTURE.game.increment);
  assert.equal(w.channelTypedData("Move", domain, bigint).hash, FIXTURE.moves[0].hash);
  // Code 4: a stamp before the predecessor's, a fallen flag.
  const third = FIXTURE.moves[2];
  let e = throwsKind(() => w.channelSuccessor(third, "e8e7", third.timestamp - 1, 2), "invalid_transition", /before its predecessor/);
  assert.deepEqual([e.code, e.reason, e.ruleCode], [4, "BAD_TIME", 0]);
  e = throwsKind(() => w.channelSuccessor(third, "e8e7", third.timestamp + 1000, 2), "invalid_transition", /flag had fallen/);
  assert.equal(e.code, 4);
  // Code 5 after the mate, code 6 with its rule code for an illegal move.
  e = throwsKind(() => w.channelSuccessor(FIXTURE.moves[3], "a2a3", FIXTURE.moves[3].timestamp + 1, 2), "invalid_transition");
  assert.deepEqual([e.code, e.reason], [5, "GAME_OVER"]);
  e = throwsKind(() => w.channelSuccessor(FIXTURE.moves[0], "e7e4", FIXTURE.moves[0].timestamp + 1, 2), "invalid_transition");
  assert.equal(e.code, 6);
  assert.ok(e.ruleCode > 0);
  throwsKind(() => w.channelSuccessor(start, "e2", 1, 2), "bad_move");
  throwsKind(() => w.channelSuccessor(start, "e2e4", -1, 2), "bad_message", /timestamp/);
  throwsKind(() => w.channelSuccessor(start, "e2e4", 1.5, 2), "bad_message", /timestamp/);
});

test("negative examples: every transition code, the high-s twin, other chain, equivocation", () => {
  const n = FIXTURE.negative;
  for (const t of n.transitions) {
    const e = throwsKind(() => w.channelCheckSuccessor(t.previous, t.move, FIXTURE.game.increment), "invalid_transition");
    assert.deepEqual([e.code, e.ruleCode], [t.code, t.ruleCode], t.name);
    assert.equal(typeof e.reason, "string");
  }
  // The twin is a valid curve point for plain ecrecover; the protocol (WASM and ethers)
  // refuses it by its s.
  assert.throws(() => Signature.from(n.highS.signature).s, /non-canonical s/);
  assert.ok(BigInt("0x" + n.highS.signature.slice(66, 130)) > HALF_ORDER, "the twin's s is in the upper half");
  assert.equal(n.highS.digest, FIXTURE.moves[0].digest);
  throwsKind(() => w.channelRecover(n.highS.digest, n.highS.signature), "bad_signature", /upper half/);
  throwsKind(() => w.channelRecover(n.highS.digest, "0x1234"), "bad_signature", /65 bytes/);
  const otherChain = { chainId: n.otherChain.chainId, verifyingContract: FIXTURE.domain.verifyingContract };
  assert.equal(w.channelTypedData("Move", otherChain, FIXTURE.moves[0]).digest, n.otherChain.digest);
  assert.equal(digestOf("Move", valueOf("Move", FIXTURE.moves[0]), n.otherChain.chainId), n.otherChain.digest);
  assert.equal(TypedDataEncoder.hashDomain(ethersDomain(n.otherChain.chainId)), n.otherChain.separator);
  assert.notEqual(n.otherChain.digest, FIXTURE.moves[0].digest);
  const { a, b } = n.equivocation;
  assert.equal(a.ply, b.ply);
  assert.equal(a.previous, b.previous);
  assert.notEqual(w.channelTypedData("Move", domain, a).hash, w.channelTypedData("Move", domain, b).hash);
  assert.equal(w.channelRecover(a.digest, a.signature), w.channelRecover(b.digest, b.signature));
  w.channelCheckSuccessor(FIXTURE.moves[1], a, FIXTURE.game.increment);
  w.channelCheckSuccessor(FIXTURE.moves[1], b, FIXTURE.game.increment);
});

// The calls of CHANNEL.md section 7, decoded by ethers from the calldata WASM wrote.
const MOVE = "(uint256 gameId,uint32 ply,uint24 mv,bytes state,bytes32 history,uint32 whiteTime,uint32 blackTime,uint64 timestamp,bytes32 previous)";
const AUTH = "(bytes signature,(uint256 gameId,address sessionKey,uint32 firstPly,uint32 lastPly,uint64 expires) delegation,bytes delegationSignature)";
const CHANNEL = new Interface([
  `function settle((uint256 gameId,uint32 ply,bytes32 position,uint8 result) result, ${AUTH} white, ${AUTH} black)`,
  `function resignBySignature((uint256 gameId,uint32 ply,bytes32 position) resignation, ${AUTH} auth, bool white)`,
  `function register(${MOVE} previous, ${AUTH} previousAuth, ${MOVE} last, ${AUTH} lastAuth, (uint256 gameId,uint32 ply,bytes32 position,uint64 seenAt) receipt, ${AUTH} receiptAuth, (bytes32 inner,uint256 clock) frozen)`,
]);

function assertAuth(auth, entry, what) {
  assert.equal(auth.signature, entry.signature, `${what}: signature`);
  if (entry.delegation < 0) {
    assert.equal(auth.delegation.sessionKey, "0x0000000000000000000000000000000000000000", `${what}: direct`);
    assert.equal(auth.delegationSignature, "0x");
  } else {
    const d = FIXTURE.delegations[entry.delegation];
    assert.deepEqual(
      [auth.delegation.gameId, auth.delegation.sessionKey, auth.delegation.firstPly, auth.delegation.lastPly, auth.delegation.expires],
      [BigInt(d.gameId), d.sessionKey, BigInt(d.firstPly), BigInt(d.lastPly), BigInt(d.expires)],
      `${what}: delegation`,
    );
    assert.equal(auth.delegationSignature, d.signature, `${what}: delegation signature`);
  }
}

test("transcript verdicts: the fixture settles by its signed result, and each variation as CHANNEL.md says", () => {
  const now = FIXTURE.now;
  // The fixture as it is: every move valid, fool's mate, settled by the result.
  let report = w.channelVerifyTranscript(FIXTURE, now);
  assert.deepEqual([report.validPlies, report.error, report.status, report.unchecked], [4, null, 1, []]);
  assert.deepEqual([report.settlement.call, report.settlement.ends], ["settle", [2, 8]]);
  let call = CHANNEL.parseTransaction({ data: report.settlement.calldata });
  assert.equal(call.name, "settle");
  const r = FIXTURE.result;
  assert.deepEqual([...call.args.result], [BigInt(r.gameId), BigInt(r.ply), r.position, BigInt(r.result)]);
  assertAuth(call.args.white, r.white, "white");
  assertAuth(call.args.black, r.black, "black");
  assert.deepEqual(w.channelVerifyTranscript(FIXTURE, BigInt(now)), report, "a BigInt clock");

  // The resignation alone.
  const resigned = clone(FIXTURE);
  delete resigned.result;
  report = w.channelVerifyTranscript(resigned, now);
  assert.deepEqual([report.error, report.settlement.call, report.settlement.ends], [null, "resignBySignature", [2, 5]]);
  call = CHANNEL.parseTransaction({ data: report.settlement.calldata });
  const s = FIXTURE.resignation;
  assert.deepEqual([...call.args.resignation], [BigInt(s.gameId), BigInt(s.ply), s.position]);
  assert.equal(call.args.white, s.by === "white");
  assertAuth(call.args.auth, s, "resignation");

  // No signed end: the mate is registered with black's last pair and white's receipt.
  const bare = clone(resigned);
  delete bare.resignation;
  report = w.channelVerifyTranscript(bare, now);
  assert.deepEqual([report.error, report.settlement.call, report.settlement.ends], [null, "register", [2, 1]]);
  call = CHANNEL.parseTransaction({ data: report.settlement.calldata });
  const [p, l] = FIXTURE.moves.slice(-2);
  assert.deepEqual([...call.args.previous].map(String), Object.values(valueOf("Move", p)).map(String));
  assert.deepEqual([...call.args.last].map(String), Object.values(valueOf("Move", l)).map(String));
  assertAuth(call.args.previousAuth, p, "previous");
  assertAuth(call.args.lastAuth, l, "last");
  assert.deepEqual([...call.args.receipt].map(String), Object.values(valueOf("Receipt", l.receipt)).map(String));
  assertAuth(call.args.receiptAuth, l.receipt, "receipt");
  // Off-chain, no frozen position is named (CHANNEL.md 7.3).
  assert.deepEqual([...call.args.frozen].map(String), ["0x" + "00".repeat(32), "0"]);
  // Without white's receipt, and long after the stamp: StaleMove.
  delete bare.moves[3].receipt;
  report = w.channelVerifyTranscript(bare, now);
  assert.match(report.settlement.why, /StaleMove/);
  assert.equal(CHANNEL.parseTransaction({ data: report.settlement.calldata }).args.receipt.position, "0x" + "00".repeat(32));

  // The lapsed draw: refused, the game is registered instead.
  const lapsed = clone(FIXTURE);
  lapsed.result = FIXTURE.negative.lapsedResult.result;
  report = w.channelVerifyTranscript(lapsed, now);
  assert.equal(report.error, "the result was signed at ply 2, but play went on to ply 4: it has lapsed");
  assert.deepEqual([report.validPlies, report.settlement.call], [4, "register"]);

  // The expired key's resignation: refused at the fixture's clock. Before its expiry it is
  // refused too, as retired: its delegation starts at ply 1, and white's whiteSession2 is a
  // later one, from ply 3 (issue 27, finding 3).
  const expired = clone(resigned);
  expired.resignation = FIXTURE.negative.expiredKey.resignation;
  report = w.channelVerifyTranscript(expired, FIXTURE.negative.expiredKey.now);
  assert.match(report.error, /ply 4: the session key expired at \d+/);
  assert.equal(report.settlement.call, "register");
  const expiredKey = FIXTURE.delegations[FIXTURE.negative.expiredKey.resignation.delegation];
  assert.deepEqual([expiredKey.firstPly, FIXTURE.delegations[1].firstPly], [1, 3]);
  report = w.channelVerifyTranscript(expired, expiredKey.expires);
  assert.match(report.error, /^ply 4: session key 0x[0-9a-fA-F]{40} is delegated from ply 1, but the player's later delegation from ply 3 retired it/);
  assert.equal(report.settlement.call, "register");

  // The draw offer is non-binding: it never settles a transcript, and its signature holds.
  const d = FIXTURE.drawOffer;
  assert.equal(w.channelRecover(d.digest, d.signature), expectedSigner(d.by, d.delegation));
});

test("transcript verdicts with pins: revoked keys, pinned digests, possible contract wallets", () => {
  const now = FIXTURE.now;
  const resigned = clone(FIXTURE);
  delete resigned.result;
  const key = FIXTURE.delegations[FIXTURE.resignation.delegation];
  const revocation = { gameId: FIXTURE.game.gameId, player: FIXTURE.game[key.player], sessionKey: key.sessionKey, at: now - 1 };
  let report = w.channelVerifyTranscript(resigned, now, { revocations: [revocation] });
  assert.match(report.error, /revoked/);
  assert.equal(report.settlement.call, "register");
  report = w.channelVerifyTranscript(resigned, now - 2, { revocations: [revocation] });
  assert.deepEqual([report.error, report.settlement.call], [null, "resignBySignature"], "not revoked yet");
  // Moves and receipts by the revoked key still count (evidence, bound by their stamps).
  report = w.channelVerifyTranscript(FIXTURE, now, { revocations: [revocation] });
  assert.equal(report.validPlies, 4);

  const unsigned = clone(FIXTURE);
  unsigned.result.white.signature = "0x" + "11".repeat(65);
  report = w.channelVerifyTranscript(unsigned, now);
  assert.notEqual(report.error, null);
  assert.equal(report.settlement.call, "register");
  report = w.channelVerifyTranscript(unsigned, now, { pinned: [{ signer: FIXTURE.game.white, digest: FIXTURE.result.digest }] });
  assert.deepEqual([report.error, report.settlement.call], [null, "settle"]);
  report = w.channelVerifyTranscript(unsigned, now, { contracts: [FIXTURE.game.white] });
  assert.deepEqual(report.unchecked.map(getAddress), [FIXTURE.game.white]);
  // A later delegation shown on-chain only (ChessChannel.retire): the resigning key
  // (whiteSession2, from ply 3) is retired from ply 4; black's or another game's is not white's.
  const retirement = (gameId, player) => ({ retirements: [{ gameId, player, firstPly: 4 }] });
  report = w.channelVerifyTranscript(resigned, now, retirement(FIXTURE.game.gameId, FIXTURE.game.white));
  assert.match(report.error, /retired it: it signs no more resignations or results/);
  assert.equal(report.settlement.call, "register");
  for (const other of [retirement(FIXTURE.game.gameId, FIXTURE.game.black), retirement(FIXTURE.game.gameId + 1, FIXTURE.game.white)]) {
    assert.equal(w.channelVerifyTranscript(resigned, now, other).error, null);
  }
  assert.deepEqual(w.channelVerifyTranscript(FIXTURE, now, {}), w.channelVerifyTranscript(FIXTURE, now));
  assert.deepEqual(w.channelVerifyTranscript(FIXTURE, now, undefined), w.channelVerifyTranscript(FIXTURE, now));
  throwsKind(() => w.channelVerifyTranscript(FIXTURE, now, { pins: [] }), "bad_message", /unknown field `pins`/);
});

test("bad input is a clear error, never a panic", () => {
  const v1Move = clone(FIXTURE.moves[0]);
  delete v1Move.timestamp;
  throwsKind(() => w.channelTypedData("Move", domain, v1Move), "bad_message", /missing field `timestamp`/);
  throwsKind(() => w.channelCheckSuccessor(FIXTURE.start, v1Move, 2), "bad_message", /timestamp/);
  const { expires, ...v1Delegation } = FIXTURE.delegations[0];
  assert.ok(expires);
  throwsKind(() => w.channelTypedData("Delegation", domain, v1Delegation), "bad_message", /missing field `expires`/);
  throwsKind(() => w.channelTypedData("Resignation", domain, { gameId: 7, ply: 4 }), "bad_message", /missing field `position`/);
  throwsKind(() => w.channelTypedData("Draw", domain, {}), "bad_message", /DrawOffer or Receipt/);
  throwsKind(() => w.channelTypedData("Move", undefined, FIXTURE.moves[0]), "bad_message", /domain/);
  throwsKind(() => w.channelTypedData("Move", domain, { ...FIXTURE.moves[0], mv: 1 << 24 }), "bad_message", /uint24|24 bits/);
  throwsKind(() => w.channelTypedData("Move", domain, { ...FIXTURE.moves[0], gameId: 7n }), "bad_message", /BigInt/);
  throwsKind(() => w.channelVerifyTranscript({ moves: 3 }, FIXTURE.now), "bad_message", /^transcript: /);
  throwsKind(() => w.channelVerifyTranscript(FIXTURE), "bad_message", /now/);
  throwsKind(() => w.channelVerifyTranscript(FIXTURE, -5), "bad_message", /now/);
  throwsKind(() => w.channelVerifyTranscript(FIXTURE, "soon"), "bad_message", /now/);
  throwsKind(() => w.channelVerifyTranscript({ ...FIXTURE, game: { ...FIXTURE.game, startState: "0x" + "00".repeat(128) } }, 0), "bad_state");
  throwsKind(() => w.channelStartMove(null), "bad_message", /game/);
  throwsKind(() => w.channelRecover("0x12", FIXTURE.moves[0].signature), "bad_signature", /digest/);
  // Times beyond 2^53 travel as decimal strings, both ways.
  const forever = { ...FIXTURE.delegations[0], expires: "18446744073709551615" };
  const typed = w.channelTypedData("Delegation", domain, forever);
  assert.equal(typed.message.expires, "18446744073709551615");
  assert.equal(typed.hash, hashOf("Delegation", valueOf("Delegation", forever)));
  assert.equal(typed.digest, digestOf("Delegation", valueOf("Delegation", forever)));
});

test("a long real game (87 plies on session keys, every move with its receipt) verifies; a flipped v is refused at its ply", async () => {
  const { default: LONG } = await import("../../chessref-channel/benches/long-game.json", { with: { type: "json" } });
  const report = w.channelVerifyTranscript(LONG, LONG.now);
  assert.equal(report.error, null);
  assert.equal(report.validPlies, 87);
  assert.equal(report.settlement.call, "resignBySignature");
  // The same r and s with the other parity verify against the session key but recover
  // to another address: refused, as the contract's ecrecover refuses it.
  const flip = (sig) => sig.slice(0, -2) + (sig.endsWith("1b") ? "1c" : "1b");
  const bad = structuredClone(LONG);
  bad.moves[59].signature = flip(bad.moves[59].signature);
  const r1 = w.channelVerifyTranscript(bad, LONG.now);
  assert.equal(r1.validPlies, 59);
  assert.match(r1.error, /^ply 60: signed by 0x[0-9a-fA-F]{40}, not by /);
  const late = structuredClone(LONG);
  late.moves[69].receipt.signature = flip(late.moves[69].receipt.signature);
  const r2 = w.channelVerifyTranscript(late, LONG.now);
  assert.equal(r2.validPlies, 70);
  assert.match(r2.error, /^ply 70: the receipt of this move is not signed on behalf of white: signed by /);
});

/** Two pages' players (white and black, session keys under their wallets' delegations
 * from ply 1) of game 1 on chain 31337, with `carry(from, frames, now)`: frames from one
 * page to the other and every answer back, the way the relay carries them. */
function pagePlayers() {
  const T0 = 1_800_000_000;
  const secret = (label) => keccak256(toUtf8Bytes(label));
  const wallets = [secret("white wallet"), secret("black wallet")];
  const sessions = [secret("white session"), secret("black session")];
  const chessDomain = { chainId: 31337, verifyingContract: "0x" + "07".repeat(20) };
  const game = {
    gameId: "1", white: w.channelAddressOf(wallets[0]), black: w.channelAddressOf(wallets[1]),
    initialTime: 600, increment: 0, responseWindow: 600,
  };
  const sides = ["white", "black"];
  /** A delegation as the page gets it back from the wallet. */
  const delegation = (side, key, firstPly) => {
    const message = { gameId: "1", sessionKey: w.channelAddressOf(key), firstPly, lastPly: 4294967295, expires: T0 + 86_400 };
    const { digest } = w.channelTypedData("Delegation", chessDomain, message);
    return { player: sides[side], ...message, signature: w.channelSign(wallets[side], digest) };
  };
  const players = [0, 1].map((side) =>
    new w.ChannelPlayer(game, chessDomain, game[sides[side]], sessions[side], delegation(side, sessions[side], 1)));
  const carry = (from, frames, now) => {
    const pending = [[1 - from, frames]];
    while (pending.length) {
      const [to, batch] = pending.pop();
      for (const frame of batch) {
        const { send } = players[to].receive(frame, now);
        if (send.length) pending.push([1 - to, send]);
      }
    }
  };
  return { T0, secret, wallets, sessions, chessDomain, game, delegation, players, carry };
}

test("the page's player refuses a rotated-out key's resignation once the later delegation is held (issue 27, finding 3)", () => {
  const { T0, secret, wallets, sessions, chessDomain, delegation, players, carry } = pagePlayers();
  ["e4", "e5", "Nf3", "Nc6"].forEach((san, i) => carry(i % 2, players[i % 2].play(san, T0 + i), T0 + i));
  const now = T0 + 5;
  // Black's wallet delegates a second key from ply 5 and never revokes the first.
  const second = secret("black session 2");
  assert.equal(players[0].receive({ type: "delegation", ...delegation(1, second, 5) }, now).received.kind, "delegation");
  // The thief of black's first key resigns for black in the latest position: refused.
  const last = players[0].transcript().moves[3];
  const resignation = { gameId: "1", ply: 4, position: w.channelTypedData("Move", chessDomain, last).hash };
  const { digest } = w.channelTypedData("Resignation", chessDomain, resignation);
  const frame = (key, own) => ({ type: "resignation", ...resignation, by: "black", signature: w.channelSign(key, digest), delegation: own });
  throwsKind(() => players[0].receive(frame(sessions[1], 0), now), "refused",
    /session key 0x[0-9a-fA-F]{40} is delegated from ply 1, but the player's later delegation from ply 5 retired it/);
  assert.equal(players[0].view().ended, null, "nothing changed");
  // The new key covers ply 5 on, not this position: black's wallet resigns here.
  throwsKind(() => players[0].receive(frame(second, 1), now), "refused", /outside the delegation's range 5\.\.=/);
  assert.equal(players[0].receive(frame(wallets[1], -1), now).received.kind, "ended");
  assert.equal(players[0].view().ended, "resignation");
});

test("a page answers a frozen registration: its pair read from the calldata, a later pair overtakes it, the direct reply counts from the showing (issue 27)", () => {
  const { T0, players, carry } = pagePlayers();
  const [white, black] = players;
  ["e4", "e5", "Nf3", "Nc6"].forEach((san, i) => carry(i % 2, players[i % 2].play(san, T0 + 1 + i), T0 + 1 + i));
  const t = white.transcript();
  /** The ethers form of a transcript entry's authorisation by `side`'s session key. */
  const authOf = (entry, side) => {
    const d = t.delegations.find((x) => x.player === side);
    assert.ok(entry.delegation >= 0 && d, `${side} signed with its session key`);
    const { gameId, sessionKey, firstPly, lastPly, expires } = d;
    return { signature: entry.signature, delegation: { gameId, sessionKey, firstPly, lastPly, expires }, delegationSignature: d.signature };
  };
  const ZERO = "0x" + "00".repeat(32);
  const none = {
    receipt: { gameId: 0, ply: 0, position: ZERO, seenAt: 0 },
    auth: { signature: "0x", delegation: { gameId: 0, sessionKey: "0x" + "00".repeat(20), firstPly: 0, lastPly: 0, expires: 0 }, delegationSignature: "0x" },
  };
  /** A registered position as its PositionRegistered names it: inner, and a clock word
   * registering `ply` until T0 + 700 with the side to move's reply deadline T0 + 400. */
  const registered = (m) => ({
    inner: keccak256(concat([m.state, m.history])),
    clock: BigInt(T0 + 700) | (BigInt(m.ply) << 136n) | (BigInt(T0 + 400) << 208n),
  });

  // Black registers the stale pair of plies 1 and 2: the calldata its page sends.
  const cut = structuredClone(t);
  cut.moves = cut.moves.slice(0, 2);
  const stale = w.channelVerifyTranscript(cut, T0 + 10).settlement;
  assert.equal(stale.call, "register");
  const pair = w.channelRegistrationPair(stale.calldata);
  const call = CHANNEL.parseTransaction({ data: stale.calldata });
  for (const [i, name] of ["previous", "last"].entries()) {
    const { move, auth } = pair[i];
    // The same move as ethers reads it from the calldata, and as the transcript holds it.
    assert.equal(hashOf("Move", valueOf("Move", move)), hashOf("Move", call.args[name].toObject()), name);
    assert.equal(hashOf("Move", valueOf("Move", move)), hashOf("Move", valueOf("Move", t.moves[i])), name);
    const abi = call.args[`${name}Auth`];
    assert.equal(auth.signature, abi.signature);
    assert.deepEqual(
      [auth.delegation.gameId, auth.delegation.sessionKey, auth.delegation.firstPly, auth.delegation.lastPly, auth.delegation.expires, auth.delegation.signature],
      [String(abi.delegation.gameId), abi.delegation.sessionKey, Number(abi.delegation.firstPly), Number(abi.delegation.lastPly), Number(abi.delegation.expires), abi.delegationSignature],
    );
  }
  assert.equal(w.channelRegistrationPair("0x12345678"), null, "not a register call");
  throwsKind(() => w.channelRegistrationPair("0xzz"), "bad_message", /calldata: not 0x hex/);
  const at2 = registered(t.moves[1]);
  const expectedRegistration = { ply: 2, windowEnd: T0 + 700, replyDeadline: T0 + 400 };
  assert.deepEqual(w.channelRegistration(at2.clock), expectedRegistration);
  assert.deepEqual(w.channelRegistration("0x" + at2.clock.toString(16)), expectedRegistration);
  assert.deepEqual(w.channelRegistration(at2.clock.toString()), expectedRegistration);
  throwsKind(() => w.channelRegistration("0xnot"), "bad_message", /is not a uint256/);
  // Shown by the registration's block, or earlier by an announcement or a showing while frozen.
  assert.equal(w.channelFirstShown(T0 + 12, 0, 0), T0 + 12);
  assert.equal(w.channelFirstShown(T0 + 12, T0 + 9, 0), T0 + 9);
  assert.equal(w.channelFirstShown(T0 + 12, 0, BigInt(T0 + 11)), T0 + 11);
  // White's page takes the pair in (it holds both), then overtakes with the later pair it
  // holds: byte for byte what ethers encodes from the transcript, naming the registration.
  for (const { move, auth } of pair) assert.equal(white.receiveShown(move, auth, T0 + 12, T0 + 13).kind, "known");
  const overtake = white.registerAnswering(at2.inner, at2.clock, T0 + 13);
  const [nf3, nc6] = t.moves.slice(2);
  assert.deepEqual([overtake.call, overtake.ends], ["register", null]);
  assert.equal(overtake.calldata, CHANNEL.encodeFunctionData("register", [
    valueOf("Move", nf3), authOf(nf3, "white"), valueOf("Move", nc6), authOf(nc6, "black"),
    valueOf("Receipt", w.channelReceipt(nc6, nc6.receipt.seenAt)), authOf(nc6.receipt, "white"), [at2.inner, at2.clock],
  ]));
  // Registered at ply 4, nothing later is held.
  const at4 = registered(nc6);
  assert.equal(white.registerAnswering(at4.inner, at4.clock, T0 + 13), null);
  assert.equal(white.registerAnswering(at4.inner, "0x" + at4.clock.toString(16), T0 + 13), null);
  throwsKind(() => white.registerAnswering("0x12", at4.clock, T0 + 13), "bad_message", /frozenInner/);

  // White is to move in the registered position: its move is the direct reply, long after
  // any stamp, charged from its receipt of Nc6 (T0 + 4) and counted by the deadline.
  white.play("Bc4", T0 + 100);
  const bc4 = white.transcript().moves[4];
  assert.equal(bc4.timestamp, nc6.timestamp + (T0 + 100 - nc6.receipt.seenAt));
  const direct = white.registerAnswering(at4.inner, at4.clock, T0 + 300);
  assert.match(direct.why, new RegExp(`direct reply to the registration of ply 4: .* by unix time ${T0 + 400}$`));
  assert.equal(direct.calldata, CHANNEL.encodeFunctionData("register", [
    valueOf("Move", nc6), authOf(nc6, "black"), valueOf("Move", bc4), authOf(bc4, "white"), none.receipt, none.auth, [at4.inner, at4.clock],
  ]));

  // Black's page never got Bc4 from the relay: it reads it from the chain, which showed it
  // at T0 + 320, held from then; black thinks 10 s and signs exactly 10 s.
  const reply = w.channelRegistrationPair(direct.calldata);
  assert.equal(black.receiveShown(reply[0].move, reply[0].auth, T0 + 320, T0 + 321).kind, "known");
  const shown = black.receiveShown(reply[1].move, reply[1].auth, T0 + 320, T0 + 321);
  assert.deepEqual([shown.kind, shown.ply, shown.by, shown.san], ["move", 5, "white", "Bc4"]);
  const view = black.view();
  assert.deepEqual([view.ply, view.toMove, view.clockFrom], [5, true, T0 + 320]);
  black.play("Nf6", T0 + 330);
  const nf6 = black.transcript().moves[5];
  assert.equal(nf6.timestamp, bc4.timestamp + 10);
  const at5 = registered(bc4);
  const blacks = black.registerAnswering(at5.inner, at5.clock, T0 + 331);
  assert.equal(blacks.calldata, CHANNEL.encodeFunctionData("register", [
    valueOf("Move", bc4), authOf(bc4, "white"), valueOf("Move", nf6), authOf(nf6, "black"), none.receipt, none.auth, [at5.inner, at5.clock],
  ]));
  // A move the transcript contradicts is refused and changes nothing; a bad auth is named.
  const forged = { ...reply[1].move, timestamp: reply[1].move.timestamp + 1 };
  throwsKind(() => white.receiveShown(forged, reply[1].auth, T0 + 320, T0 + 321), "refused");
  assert.equal(white.view().ply, 5);
  throwsKind(() => black.receiveShown(reply[1].move, { signature: 7 }, T0 + 320, T0 + 321), "bad_message", /^auth: /);
});
