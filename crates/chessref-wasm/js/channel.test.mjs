// docs/CHANNEL.md worked examples, recomputed with ethers (an EIP-712 implementation
// independent of the Rust crate that generated tests/fixtures/channel-examples.json
// and of the Solidity contract): domain separator, type hashes, every hashStruct and
// digest, every signature's signer, and the low-s rule.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TypedDataEncoder, recoverAddress, keccak256, toUtf8Bytes, Signature } from "ethers";

import FIXTURE from "../../../tests/fixtures/channel-examples.json" with { type: "json" };

const TYPES = {
  Move: [
    { name: "gameId", type: "uint256" },
    { name: "ply", type: "uint32" },
    { name: "mv", type: "uint24" },
    { name: "state", type: "bytes" },
    { name: "history", type: "bytes32" },
    { name: "whiteTime", type: "uint32" },
    { name: "blackTime", type: "uint32" },
    { name: "previous", type: "bytes32" },
  ],
  Delegation: [
    { name: "gameId", type: "uint256" },
    { name: "sessionKey", type: "address" },
    { name: "firstPly", type: "uint32" },
    { name: "lastPly", type: "uint32" },
  ],
  Resignation: [
    { name: "gameId", type: "uint256" },
    { name: "ply", type: "uint32" },
  ],
  Result: [
    { name: "gameId", type: "uint256" },
    { name: "ply", type: "uint32" },
    { name: "result", type: "uint8" },
  ],
};

const HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

const domain = (chainId = FIXTURE.domain.chainId) => ({
  name: FIXTURE.domain.name,
  version: FIXTURE.domain.version,
  chainId,
  verifyingContract: FIXTURE.domain.verifyingContract,
});

const moveValue = (m) => ({
  gameId: m.gameId,
  ply: m.ply,
  mv: m.mv,
  state: m.state,
  history: m.history,
  whiteTime: m.whiteTime,
  blackTime: m.blackTime,
  previous: m.previous,
});

const hashOf = (type, value) => TypedDataEncoder.hashStruct(type, { [type]: TYPES[type] }, value);
const digestOf = (type, value, chainId) =>
  TypedDataEncoder.hash(domain(chainId), { [type]: TYPES[type] }, value);

function assertLowS(signature, what) {
  const s = BigInt("0x" + signature.slice(2 + 64, 2 + 128));
  assert.ok(s <= HALF_ORDER, `${what}: s must be in the lower half`);
  const v = parseInt(signature.slice(-2), 16);
  assert.ok(v === 27 || v === 28, `${what}: v must be 27 or 28, is ${v}`);
}

test("domain separator and type hashes", () => {
  assert.equal(TypedDataEncoder.hashDomain(domain()), FIXTURE.domain.separator);
  for (const [name, t] of Object.entries(FIXTURE.types)) {
    assert.equal(TypedDataEncoder.from({ [name]: TYPES[name] }).encodeType(name), t.type, name);
    assert.equal(keccak256(toUtf8Bytes(t.type)), t.typeHash, name);
  }
});

test("the start move and every signed move: hashStruct, digest, signer, low s", () => {
  assert.equal(hashOf("Move", moveValue(FIXTURE.start)), FIXTURE.start.hash);
  assert.equal(FIXTURE.moves[0].previous, FIXTURE.start.hash);
  for (const [i, m] of FIXTURE.moves.entries()) {
    const v = moveValue(m);
    assert.equal(hashOf("Move", v), m.hash, `ply ${m.ply} hash`);
    assert.equal(digestOf("Move", v), m.digest, `ply ${m.ply} digest`);
    assert.equal(recoverAddress(m.digest, m.signature), m.signer, `ply ${m.ply} signer`);
    assertLowS(m.signature, `ply ${m.ply}`);
    if (i > 0) assert.equal(m.previous, FIXTURE.moves[i - 1].hash, `ply ${m.ply} chains to ply ${i}`);
    const expected = m.delegation < 0 ? FIXTURE.game[m.author] : FIXTURE.delegations[m.delegation].sessionKey;
    assert.equal(m.signer, expected, `ply ${m.ply} signed on behalf of its author`);
  }
});

test("delegations: signed by the player's wallet over a ply range", () => {
  for (const d of FIXTURE.delegations) {
    const v = { gameId: d.gameId, sessionKey: d.sessionKey, firstPly: d.firstPly, lastPly: d.lastPly };
    assert.equal(hashOf("Delegation", v), d.hash, d.name);
    assert.equal(digestOf("Delegation", v), d.digest, d.name);
    assert.equal(recoverAddress(d.digest, d.signature), FIXTURE.game[d.player], d.name);
  }
});

test("resignation and result", () => {
  const r = FIXTURE.resignation;
  assert.equal(digestOf("Resignation", { gameId: r.gameId, ply: r.ply }), r.digest);
  assert.equal(recoverAddress(r.digest, r.signature), r.signer);
  const res = FIXTURE.result;
  const value = { gameId: res.gameId, ply: res.ply, result: res.result };
  assert.equal(hashOf("Result", value), res.hash);
  assert.equal(digestOf("Result", value), res.digest);
  assert.equal(recoverAddress(res.digest, res.white.signature), res.white.signer);
  assert.equal(recoverAddress(res.digest, res.black.signature), res.black.signer);
});

test("negative examples: high-s twin, wrong signer, other chain, equivocation", () => {
  const n = FIXTURE.negative;
  // The twin is a valid curve point for plain ecrecover; the protocol (and ethers)
  // refuses it by its s.
  assert.throws(() => Signature.from(n.highS.signature).s, /non-canonical s/);
  const s = BigInt("0x" + n.highS.signature.slice(66, 130));
  assert.ok(s > HALF_ORDER, "the twin's s is in the upper half");
  assert.notEqual(recoverAddress(n.wrongSigner.digest, n.wrongSigner.signature), FIXTURE.game.black);
  assert.equal(digestOf("Move", moveValue(FIXTURE.moves[0]), n.otherChain.chainId), n.otherChain.digest);
  assert.notEqual(n.otherChain.digest, FIXTURE.moves[0].digest);
  const { a, b } = n.equivocation;
  assert.equal(a.ply, b.ply);
  assert.notEqual(hashOf("Move", moveValue(a)), hashOf("Move", moveValue(b)));
  assert.equal(recoverAddress(a.digest, a.signature), recoverAddress(b.digest, b.signature));
  for (const t of n.transitions) {
    assert.equal(hashOf("Move", moveValue(t.move)), t.move.hash, t.name);
    assert.equal(recoverAddress(t.move.digest, t.move.signature), t.move.signer, t.name);
  }
});
