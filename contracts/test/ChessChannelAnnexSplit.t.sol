// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Vm} from "./utils/Test.sol";
import {ChannelBase} from "./ChessChannelBase.t.sol";
import {ChessReferee} from "../src/ChessReferee.sol";
import {ChessRefereeAnnex} from "../src/ChessRefereeAnnex.sol";
import {ChessChannelAnnex} from "../src/ChessChannelAnnex.sol";
import {ChessChannelBlueprint} from "../src/ChessChannelBlueprint.sol";
import {ChessTournamentBlueprint} from "../src/ChessTournamentBlueprint.sol";
import {IChessReferee, IChessRefereeTypes} from "../src/IChessReferee.sol";
import {IChessChannel, IChessChannelTypes} from "../src/IChessChannel.sol";
import {IChessCourt} from "../src/ChessCourt.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {AnnexCall} from "../src/AnnexCall.sol";
import {ChannelHash, Move, Delegation, Resignation, Result, DrawOffer, Receipt, Auth} from "../src/ChannelHash.sol";
import {OwnedWallet} from "./mocks/Wallets.sol";

/// @notice A front for the real `ChessChannelAnnex` that anyone can deploy: it names the real
/// referee as its own and runs every other call on the annex's code, as a channel does.
contract AnnexFront {
    IChessCourt public immutable referee;
    address private immutable code;

    constructor(IChessCourt court, address annexCode) {
        referee = court;
        code = annexCode;
    }

    fallback() external {
        AnnexCall.forward(code);
    }
}

/// @notice Second reading of the ChessChannel / ChessChannelAnnex split (issue 27): the annex
/// acts for a channel only through that channel's fallback, both halves read and write the
/// same slots, the fallback answers only the annex's functions, the referee refuses a channel
/// annex without code, signatures are bound to the channel's domain on both halves, and the
/// channel's own paths (`settle`, `resignBySignature`, `register`) never run annex code.
contract ChessChannelAnnexSplitTest is ChannelBase {
    event SignaturePinned(address indexed signer, bytes32 indexed digest);

    /// @dev The channel's annex, called at its own address (not through a channel).
    function _bare() internal view returns (IChessChannel) {
        return IChessChannel(channel.annex());
    }

    /// @dev The EIP-712 domain separator naming `verifying` on this chain.
    function _domainOf(address verifying) internal view returns (bytes32) {
        return ChannelHash.domainSeparator(block.chainid, verifying);
    }

    /// @dev `msg.sender` `from` sends `data` to `to`; returns whether it succeeded, and its answer.
    function _callAs(address from, address to, bytes memory data) internal returns (bool ok, bytes memory answer) {
        vm.prank(from);
        (ok, answer) = to.call(data);
    }

    /// @dev The result `result` of game `id` at ply 0, signed directly by both players for the
    /// domain naming `verifying`.
    function _resultFor(uint256 id, uint8 result, address verifying)
        internal
        view
        returns (Result memory r, Auth memory w, Auth memory b)
    {
        r = Result({gameId: id, ply: 0, position: 0, result: result});
        bytes32 d = ChannelHash.digest(_domainOf(verifying), channel.hashResult(r));
        w = _direct(_sig(ALICE_PK, d));
        b = _direct(_sig(BOB_PK, d));
    }

    /// @dev Alice's delegation of `sessionPk` in game `id` from `firstPly`, signed by her for
    /// the domain naming `verifying`.
    function _aliceDelegation(uint256 id, uint256 sessionPk, uint32 firstPly, address verifying)
        internal
        view
        returns (Delegation memory d, bytes memory signature)
    {
        d = _delegation(id, sessionPk, firstPly, type(uint32).max);
        signature = _sig(ALICE_PK, ChannelHash.digest(_domainOf(verifying), channel.hashDelegation(d)));
    }

    /// @dev Two different first moves alice signed for the domain naming `verifying`.
    function _equivocation(uint256 id, address verifying)
        internal
        view
        returns (Move memory a, Auth memory aa, Move memory b, Auth memory ba)
    {
        Move memory start = _startMove(id, ChessRules.initialState());
        a = _next(start, "e2e4", 0);
        b = _next(start, "d2d4", 0);
        aa = _direct(_sig(ALICE_PK, ChannelHash.digest(_domainOf(verifying), channel.hashMove(a))));
        ba = _direct(_sig(ALICE_PK, ChannelHash.digest(_domainOf(verifying), channel.hashMove(b))));
    }

    /// @dev A channel game with an ERC-1271 wallet owned by alice's key as white, against bob.
    function _walletGame() internal returns (uint256 id, OwnedWallet wallet) {
        wallet = new OwnedWallet(alice);
        vm.deal(address(wallet), 10 ether);
        vm.prank(address(wallet));
        id = ref.createChannelGame{value: STAKE}(bob, true, address(0), STAKE, INITIAL, INCREMENT, 0, "", WINDOW);
        _join(id, bob, STAKE);
    }

    /// @dev Replaces the annex's code by a bare revert, and checks that a call routed to it through
    /// the channel now fails (so a path that still succeeds runs none of it).
    function _breakAnnex() internal {
        vm.etch(channel.annex(), hex"5f5ffd"); // PUSH0 PUSH0 REVERT
        (bool ok,) = address(channel).staticcall(abi.encodeCall(IChessChannel.announcedAt, (bytes32(0))));
        assertFalse(ok, "the annex is broken");
    }

    // ================================================================ the annex called directly

    /// @dev Every game-touching function of the annex finds its referee by asking
    /// `referee()` of its own address: the annex has none and no fallback, so the call reverts
    /// with no data before it reads any game.
    function test_Direct_AnnexHasNoRefereeNorAnnex() public view {
        (bool ok, bytes memory answer) = address(_bare()).staticcall(abi.encodeCall(IChessChannel.referee, ()));
        assertFalse(ok, "referee() on the annex");
        assertEq(answer.length, 0);
        (ok, answer) = address(_bare()).staticcall(abi.encodeCall(IChessChannel.annex, ()));
        assertFalse(ok, "annex() on the annex");
        assertEq(answer.length, 0);
    }

    /// @dev A player's revocation sent to the annex directly reverts and revokes nothing: the
    /// key still settles through the channel.
    function test_Direct_RevokeSessionKeyRevertsAndRevokesNothing() public {
        uint256 id = _startChannelGame();
        address key = vm.addr(SESSION1_PK);
        (bool ok, bytes memory answer) =
            _callAs(alice, address(_bare()), abi.encodeCall(IChessChannel.revokeSessionKey, (id, key)));
        assertFalse(ok);
        assertEq(answer.length, 0);
        assertEq(channel.revokedAt(id, alice, key), 0);

        Result memory r = Result({gameId: id, ply: 0, position: 0, result: WHITE_WINS});
        bytes32 d = _resultDigest(r);
        channel.settle(
            r, _bySession(ALICE_PK, SESSION1_PK, _delegation(id, SESSION1_PK, 0, 100), d), _direct(_sig(BOB_PK, d))
        );
        assertEq(_credit(alice), 2 * STAKE, "the unrevoked key's result counts");
    }

    /// @dev A retirement sent to the annex directly reverts, with a signature for either
    /// domain, and the channel's `agreementsFrom` stays 0.
    function test_Direct_RetireRevertsForEitherDomain() public {
        uint256 id = _startChannelGame();
        (Delegation memory d, bytes memory forChannel) = _aliceDelegation(id, SESSION2_PK, 5, address(channel));
        (, bytes memory forAnnex) = _aliceDelegation(id, SESSION2_PK, 5, address(_bare()));
        (bool ok,) = _callAs(carol, address(_bare()), abi.encodeCall(IChessChannel.retire, (id, d, forChannel, true)));
        assertFalse(ok, "channel-domain signature");
        (ok,) = _callAs(carol, address(_bare()), abi.encodeCall(IChessChannel.retire, (id, d, forAnnex, true)));
        assertFalse(ok, "annex-domain signature");
        assertEq(channel.agreementsFrom(id, alice), 0);
        assertEq(_bare().agreementsFrom(id, alice), 0);
    }

    /// @dev A player's `registerStart` sent to the annex directly reverts: the game stays
    /// off-chain, no position and no clock.
    function test_Direct_RegisterStartRevertsAndRegistersNothing() public {
        uint256 id = _startChannelGame();
        (bool ok,) = _callAs(alice, address(_bare()), abi.encodeCall(IChessChannel.registerStart, (line[0])));
        assertFalse(ok);
        assertEq(ref.getGame(id).commitment, bytes32(0));
        assertEq(ref.channelGame(id).windowEnd, 0);
        // the same call through the channel registers: the input was good
        vm.prank(alice);
        channel.registerStart(line[0]);
        assertNotEq(ref.getGame(id).commitment, bytes32(0));
    }

    /// @dev An announcement sent to the annex directly reverts, emits nothing and records no
    /// showing, on the channel or on the annex.
    function test_Direct_AnnounceRevertsAndEmitsNothing() public {
        uint256 id = _startChannelGame();
        _extend("e2e4");
        Move memory m = line[1];
        Auth memory a = _byAuthor(m);
        bytes32 h = channel.hashMove(m);
        vm.recordLogs();
        (bool ok,) = _callAs(carol, address(_bare()), abi.encodeCall(IChessChannel.announce, (m, a)));
        assertFalse(ok);
        assertEq(vm.getRecordedLogs().length, 0, "no event");
        assertEq(channel.announcedAt(h), 0);
        assertEq(_bare().announcedAt(h), 0);
        assertEq(ref.getGame(id).phase, PHASE_RUNNING);
    }

    /// @dev A true proof of equivocation sent to the annex directly reverts and ends nothing;
    /// the same proof through the channel ends the game.
    function test_Direct_ProveEquivocationRevertsAndEndsNothing() public {
        uint256 id = _startChannelGame();
        (Move memory a, Auth memory aa, Move memory b, Auth memory ba) = _equivocation(id, address(channel));
        (bool ok,) = _callAs(carol, address(_bare()), abi.encodeCall(IChessChannel.proveEquivocation, (a, aa, b, ba)));
        assertFalse(ok);
        assertEq(ref.getGame(id).phase, PHASE_RUNNING);
        assertEq(_credit(bob), 0);

        channel.proveEquivocation(a, aa, b, ba);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, BLACK_WINS);
        assertEq(reason, 12);
    }

    /// @dev A true proof of an illegal signed move sent to the annex directly reverts and
    /// ends nothing; the same proof through the channel ends the game.
    function test_Direct_ProveIllegalMoveRevertsAndEndsNothing() public {
        uint256 id = _startChannelGame();
        Move memory bad = _next(line[0], "e2e4", 0);
        bad.state = _next(line[0], "d2d4", 0).state; // names e2e4, shows d2d4: section 6 code 7
        Auth memory ba = _byAuthor(bad);
        (bool ok,) =
            _callAs(carol, address(_bare()), abi.encodeCall(IChessChannel.proveIllegalMove, (line[0], bad, ba)));
        assertFalse(ok);
        assertEq(ref.getGame(id).phase, PHASE_RUNNING);

        channel.proveIllegalMove(line[0], bad, ba);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, BLACK_WINS);
        assertEq(reason, 13);
    }

    /// @dev `settle` is the channel's own: the annex has no such function, so a valid
    /// settlement sent to it reverts and credits nothing.
    function test_Direct_SettleIsNotAnAnnexFunction() public {
        uint256 id = _startChannelGame();
        (Result memory r, Auth memory w, Auth memory b) = _resultFor(id, WHITE_WINS, address(channel));
        (bool ok, bytes memory answer) =
            _callAs(carol, address(_bare()), abi.encodeCall(IChessChannel.settle, (r, w, b)));
        assertFalse(ok);
        assertEq(answer.length, 0);
        assertEq(ref.getGame(id).phase, PHASE_RUNNING);
        assertEq(_credit(alice), 0);
    }

    /// @dev The one annex function that needs no game: `pin` sent directly succeeds, but in
    /// the annex's own storage, with the annex as the event's emitter. The channel's `pinned`
    /// stays false and its `settle` still refuses the wallet's signature.
    function test_Direct_PinCountsOnlyInTheAnnexsOwnStorage() public {
        (uint256 id, OwnedWallet wallet) = _walletGame();
        (Result memory r, Auth memory w, Auth memory b) = _resultFor(id, WHITE_WINS, address(channel));
        bytes32 d = _resultDigest(r);
        vm.recordLogs();
        vm.prank(carol);
        _bare().pin(address(wallet), d, w.signature);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        assertEq(logs.length, 1);
        assertEq(logs[0].emitter, address(_bare()), "emitted by the annex, not the channel");
        assertEq(logs[0].topics[0], SignaturePinned.selector);
        assertTrue(_bare().pinned(address(wallet), d));
        assertFalse(channel.pinned(address(wallet), d));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, address(wallet)));
        channel.settle(r, w, b);
    }

    /// @dev The pure hash views answer the same at the annex and at the channel.
    function test_Direct_HashViewsAgreeWithTheChannel() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5");
        IChessChannel direct = _bare();
        assertEq(direct.hashMove(line[2]), channel.hashMove(line[2]));
        Delegation memory d = _delegation(id, SESSION1_PK, 1, 9);
        assertEq(direct.hashDelegation(d), channel.hashDelegation(d));
        Resignation memory rs = Resignation({gameId: id, ply: 2, position: bytes32(uint256(7))});
        assertEq(direct.hashResignation(rs), channel.hashResignation(rs));
        Result memory rt = Result({gameId: id, ply: 2, position: bytes32(uint256(7)), result: DRAW});
        assertEq(direct.hashResult(rt), channel.hashResult(rt));
        DrawOffer memory o = DrawOffer({gameId: id, ply: 2, position: bytes32(uint256(7))});
        assertEq(direct.hashDrawOffer(o), channel.hashDrawOffer(o));
        Receipt memory rc = _receipt(line[2], uint64(block.timestamp));
        assertEq(direct.hashReceipt(rc), channel.hashReceipt(rc));
        (uint256 code, uint256 rule) = direct.transitionCode(id, INCREMENT, line[1], line[2]);
        (uint256 code2, uint256 rule2) = channel.transitionCode(id, INCREMENT, line[1], line[2]);
        assertEq(code, 0);
        assertEq(code2, 0);
        assertEq(rule, rule2);
        assertEq(direct.STAMP_TOLERANCE(), channel.STAMP_TOLERANCE());
        assertEq(direct.CLOCK_TOLERANCE(), channel.CLOCK_TOLERANCE());
    }

    /// @dev The annex's `domainSeparator` and `digestOf` name the annex as verifying
    /// contract: never the channel's, so a client that read them from the annex would sign
    /// messages no channel takes.
    function test_Direct_DomainAndDigestNameTheAnnex() public view {
        IChessChannel direct = _bare();
        assertEq(direct.domainSeparator(), _domainOf(address(direct)));
        assertNotEq(direct.domainSeparator(), channel.domainSeparator());
        bytes32 h = keccak256("any struct");
        assertEq(direct.digestOf(h), ChannelHash.digest(_domainOf(address(direct)), h));
        assertNotEq(direct.digestOf(h), channel.digestOf(h));
    }

    /// @dev The annex's state views read the annex's own (empty) storage: a showing recorded
    /// through the channel reads 0 there.
    function test_Direct_StateViewsReadTheAnnexsOwnStorage() public {
        _startChannelGame();
        _extend("e2e4");
        bytes32 h = channel.hashMove(line[1]);
        channel.announce(line[1], _byAuthor(line[1]));
        assertEq(channel.announcedAt(h), block.timestamp);
        assertEq(_bare().announcedAt(h), 0);
    }

    /// @dev Anyone may put a front of their own before the annex, naming the real referee:
    /// a `registerStart` through it (no signature needed) is refused by the referee, which
    /// takes positions from its own channel only.
    function test_Front_CannotRegisterARealGame() public {
        uint256 id = _startChannelGame();
        IChessChannel front = IChessChannel(address(new AnnexFront(IChessCourt(address(ref)), channel.annex())));
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.NotChannel.selector);
        front.registerStart(line[0]);
        assertEq(ref.getGame(id).commitment, bytes32(0));
    }

    /// @dev Signatures bind the channel's address: a proof signed for the channel does not
    /// verify through a front, and one signed for the front (alice's own equivocation) gets
    /// past the signatures but the referee refuses to end the game for the front.
    function test_Front_CannotEndARealGameByProof() public {
        uint256 id = _startChannelGame();
        IChessChannel front = IChessChannel(address(new AnnexFront(IChessCourt(address(ref)), channel.annex())));
        (Move memory a, Auth memory aa, Move memory b, Auth memory ba) = _equivocation(id, address(channel));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        front.proveEquivocation(a, aa, b, ba);
        (a, aa, b, ba) = _equivocation(id, address(front));
        vm.expectRevert(IChessRefereeTypes.NotChannel.selector);
        front.proveEquivocation(a, aa, b, ba);
        assertEq(ref.getGame(id).phase, PHASE_RUNNING);
    }

    // ================================================================ one storage, two codes

    /// @dev A wallet's approval pinned through the fallback (annex code) is what `settle`
    /// (channel code) reads.
    function test_Storage_PinThroughTheFallbackCountsForSettle() public {
        (uint256 id, OwnedWallet wallet) = _walletGame();
        (Result memory r, Auth memory w, Auth memory b) = _resultFor(id, WHITE_WINS, address(channel));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, address(wallet)));
        channel.settle(r, w, b);
        vm.prank(carol);
        channel.pin(address(wallet), _resultDigest(r), w.signature);
        assertTrue(channel.pinned(address(wallet), _resultDigest(r)));
        channel.settle(r, w, b);
        assertEq(ref.credits(address(wallet), address(0)), 2 * STAKE);
    }

    /// @dev A revocation through the fallback (annex code) is what `settle` (channel code)
    /// reads: the revoked key's result no longer counts.
    function test_Storage_RevokeThroughTheFallbackCountsForSettle() public {
        uint256 id = _startChannelGame();
        address key = vm.addr(SESSION1_PK);
        vm.prank(alice);
        channel.revokeSessionKey(id, key);
        assertEq(channel.revokedAt(id, alice, key), block.timestamp);
        Result memory r = Result({gameId: id, ply: 0, position: 0, result: WHITE_WINS});
        bytes32 d = _resultDigest(r);
        Auth memory w = _bySession(ALICE_PK, SESSION1_PK, _delegation(id, SESSION1_PK, 0, 100), d);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.settle(r, w, _direct(_sig(BOB_PK, d)));
        assertEq(ref.getGame(id).phase, PHASE_RUNNING);
    }

    /// @dev A retirement through the fallback (annex code) is what `resignBySignature`
    /// (channel code) reads: the rotated-out key cannot resign for alice.
    function test_Storage_RetireThroughTheFallbackCountsForResignBySignature() public {
        uint256 id = _startChannelGame();
        (Delegation memory later, bytes memory signature) = _aliceDelegation(id, SESSION2_PK, 5, address(channel));
        vm.prank(carol);
        channel.retire(id, later, signature, true);
        assertEq(channel.agreementsFrom(id, alice), 5);
        Resignation memory rs = Resignation({gameId: id, ply: 0, position: 0});
        Auth memory stolen =
            _bySession(ALICE_PK, SESSION1_PK, _delegation(id, SESSION1_PK, 0, 100), _resignationDigest(rs));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.RetiredKey.selector, vm.addr(SESSION1_PK)));
        channel.resignBySignature(rs, stolen, true);
        assertEq(ref.getGame(id).phase, PHASE_RUNNING);
    }

    /// @dev An announcement through the fallback (annex code) is what `register` (channel
    /// code) reads: a move too old to register fresh registers because it was announced in time.
    function test_Storage_AnnounceThroughTheFallbackCountsForRegister() public {
        uint256 id = _startChannelGame();
        _extend("e2e4");
        uint256 snap = vm.snapshotState();
        vm.warp(block.timestamp + 2 * channel.STAMP_TOLERANCE());
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.StaleMove.selector, line[1].timestamp));
        this.registerExternal(1);
        vm.revertToState(snap);

        channel.announce(line[1], _byAuthor(line[1]));
        vm.warp(block.timestamp + 2 * channel.STAMP_TOLERANCE());
        _register(1);
        assertEq(ref.channelGame(id).registeredPly, 1);
    }

    /// @dev A showing recorded by `register` (channel code: an overtake naming a position that
    /// is not the registered one) is what `shownWhileFrozenAt` (annex code) reads.
    function test_Storage_ShowingByRegisterReadThroughTheFallback() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3 b8c6");
        _register(2);
        vm.warp(block.timestamp + 10);
        Move memory m = line[4];
        vm.prank(carol);
        channel.register(
            line[3], _byAuthor(line[3]), m, _byAuthor(m), _noReceipt(), _direct(""), _frozenWith(id, pos[id].clock ^ 1)
        );
        assertEq(ref.channelGame(id).registeredPly, 2, "nothing registered");
        assertEq(channel.shownWhileFrozenAt(channel.hashMove(m)), block.timestamp);
        assertEq(channel.announcedAt(channel.hashMove(m)), 0);
    }

    // ================================================================ the fallback

    /// @dev The fallback is not payable: an annex call with ETH reverts and pins nothing.
    function test_Fallback_RefusesEthWithAnAnnexCall() public {
        (uint256 id, OwnedWallet wallet) = _walletGame();
        (Result memory r, Auth memory w,) = _resultFor(id, WHITE_WINS, address(channel));
        bytes32 d = _resultDigest(r);
        vm.prank(carol);
        (bool ok,) =
            address(channel).call{value: 1}(abi.encodeCall(IChessChannel.pin, (address(wallet), d, w.signature)));
        assertFalse(ok);
        assertFalse(channel.pinned(address(wallet), d));
        assertEq(address(channel).balance, 0);
    }

    /// @dev Plain ETH (empty calldata) reverts: the channel has no receive function.
    function test_Fallback_RefusesPlainEth() public {
        vm.prank(carol);
        (bool ok,) = address(channel).call{value: 1 ether}("");
        assertFalse(ok);
        assertEq(address(channel).balance, 0);
    }

    /// @dev Empty calldata without value reaches the annex, which has no fallback: a revert
    /// with no data.
    function test_Fallback_EmptyCalldataReverts() public {
        (bool ok, bytes memory answer) = _callAs(carol, address(channel), "");
        assertFalse(ok);
        assertEq(answer.length, 0);
    }

    /// @dev A selector neither half defines, or calldata shorter than a selector, reverts
    /// with no data and emits nothing.
    function test_Fallback_UnknownSelectorRevertsAndEmitsNothing() public {
        vm.recordLogs();
        (bool ok, bytes memory answer) =
            _callAs(carol, address(channel), abi.encodeWithSignature("noSuchFunction(uint256)", 1));
        assertFalse(ok);
        assertEq(answer.length, 0);
        (ok, answer) = _callAs(carol, address(channel), hex"aabbcc");
        assertFalse(ok);
        assertEq(answer.length, 0);
        assertEq(vm.getRecordedLogs().length, 0);
    }

    /// @dev The referee annex's functions are not the channel's: `cancelGame` sent to the
    /// channel reverts and the open game stays open, its stake where it was.
    function test_Fallback_RefereeAnnexSelectorReverts() public {
        uint256 id = _createChannel(alice, bob, "");
        (bool ok,) = _callAs(alice, address(channel), abi.encodeCall(IChessReferee.cancelGame, (id)));
        assertFalse(ok);
        assertEq(ref.getGame(id).phase, PHASE_OPEN);
        assertEq(_credit(alice), 0);
    }

    /// @dev `domainSeparator` is defined by both halves (the channel's answers, cached) and
    /// the annex's digests are computed: they agree, at deployment and after a fork changes
    /// the chain id.
    function test_Selectors_SharedDomainAgreesWithTheAnnexsDigests() public {
        bytes32 h = keccak256("any struct");
        assertEq(channel.domainSeparator(), _domainOf(address(channel)));
        assertEq(channel.digestOf(h), ChannelHash.digest(channel.domainSeparator(), h));
        vm.chainId(block.chainid + 1);
        assertEq(channel.domainSeparator(), _domainOf(address(channel)));
        assertEq(channel.digestOf(h), ChannelHash.digest(channel.domainSeparator(), h));
    }

    // ================================================================ the referee's constructor

    /// @dev A channel annex without code is refused, even with a good referee annex.
    function test_Constructor_RefusesAChannelAnnexWithoutCode() public {
        address blueprint = address(new ChessChannelBlueprint());
        address refereeAnnex = address(new ChessRefereeAnnex());
        address tournamentBlueprint = address(new ChessTournamentBlueprint());
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.BadAnnex.selector, alice));
        new ChessReferee(blueprint, refereeAnnex, alice, tournamentBlueprint);
    }

    /// @dev The annexes swapped: the constructor only checks that each has code, so the
    /// deployment succeeds and its own functions take a stake, but every call routed to an
    /// annex reverts (the wrong annex defines none of them): `getGame` and `cancelGame` on the
    /// referee, `pin` and the views on the channel. The open game's stake cannot be taken back.
    function test_Constructor_SwappedAnnexesDeployButEveryAnnexCallReverts() public {
        address refereeAnnex = address(new ChessRefereeAnnex());
        address channelAnnex = address(new ChessChannelAnnex());
        IChessReferee swapped = IChessReferee(
            address(
                new ChessReferee(
                    address(new ChessChannelBlueprint()),
                    channelAnnex,
                    refereeAnnex,
                    address(new ChessTournamentBlueprint())
                )
            )
        );
        IChessChannel ch = swapped.channel();
        assertEq(swapped.annex(), channelAnnex);
        assertEq(ch.annex(), refereeAnnex);

        vm.prank(alice);
        uint256 id =
            swapped.createChannelGame{value: STAKE}(bob, true, address(0), STAKE, INITIAL, INCREMENT, 0, "", WINDOW);
        assertEq(address(swapped).balance, STAKE, "the stake is taken");
        (bool ok,) = address(swapped).call(abi.encodeCall(IChessReferee.getGame, (id)));
        assertFalse(ok, "getGame");
        (ok,) = _callAs(alice, address(swapped), abi.encodeCall(IChessReferee.cancelGame, (id)));
        assertFalse(ok, "cancelGame");
        (ok,) = address(swapped).call(abi.encodeCall(IChessReferee.credits, (alice, address(0))));
        assertFalse(ok, "credits");

        (ok,) = address(ch).call(abi.encodeCall(IChessChannel.pin, (alice, bytes32(0), "")));
        assertFalse(ok, "pin");
        (ok,) = address(ch).call(abi.encodeCall(IChessChannel.hashMove, (_startMove(id, ChessRules.initialState()))));
        assertFalse(ok, "hashMove");
        assertEq(address(swapped).balance, STAKE, "still held");
    }

    // ================================================================ EIP-712 across the halves

    /// @dev A delegation signed for the channel's domain retires through the fallback.
    function test_Eip712_ChannelDomainSignatureRetires() public {
        uint256 id = _startChannelGame();
        (Delegation memory later, bytes memory signature) = _aliceDelegation(id, SESSION2_PK, 5, address(channel));
        channel.retire(id, later, signature, true);
        assertEq(channel.agreementsFrom(id, alice), 5);
    }

    /// @dev A delegation signed for the annex's address as verifying contract does not retire.
    function test_Eip712_AnnexDomainSignatureDoesNotRetire() public {
        uint256 id = _startChannelGame();
        (Delegation memory later, bytes memory signature) = _aliceDelegation(id, SESSION2_PK, 5, channel.annex());
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.retire(id, later, signature, true);
        assertEq(channel.agreementsFrom(id, alice), 0);
    }

    /// @dev A result signed for the annex's domain does not settle.
    function test_Eip712_AnnexDomainSignatureDoesNotSettle() public {
        uint256 id = _startChannelGame();
        (Result memory r, Auth memory w, Auth memory b) = _resultFor(id, WHITE_WINS, channel.annex());
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.settle(r, w, b);
        assertEq(ref.getGame(id).phase, PHASE_RUNNING);
    }

    /// @dev After a fork changes the chain id, a delegation signed for the new chain's domain
    /// retires through the fallback (its domain computed, not cached) and the old chain's does not.
    function test_Eip712_AfterAForkOnlyTheNewChainsDomainRetires() public {
        uint256 id = _startChannelGame();
        (Delegation memory later, bytes memory oldChain) = _aliceDelegation(id, SESSION2_PK, 5, address(channel));
        vm.chainId(block.chainid + 1);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.retire(id, later, oldChain, true);
        (, bytes memory newChain) = _aliceDelegation(id, SESSION2_PK, 5, address(channel));
        channel.retire(id, later, newChain, true);
        assertEq(channel.agreementsFrom(id, alice), 5);
    }

    // ================================================================ the channel's own paths

    /// @dev `settle` never runs annex code: with the annex's code replaced by a bare revert, a
    /// settlement (signatures made beforehand) still pays.
    function test_OwnPaths_SettleRunsWithoutTheAnnex() public {
        uint256 id = _startChannelGame();
        (Result memory r, Auth memory w, Auth memory b) = _resultFor(id, WHITE_WINS, address(channel));
        _breakAnnex();
        channel.settle(r, w, b);
        assertEq(_credit(alice), 2 * STAKE);
    }

    /// @dev `resignBySignature` never runs annex code.
    function test_OwnPaths_ResignBySignatureRunsWithoutTheAnnex() public {
        uint256 id = _startChannelGame();
        Resignation memory rs = Resignation({gameId: id, ply: 0, position: 0});
        Auth memory a = _direct(_sig(BOB_PK, _resignationDigest(rs)));
        _breakAnnex();
        channel.resignBySignature(rs, a, false);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, WHITE_WINS);
        assertEq(reason, 5);
    }

    /// @dev `register` never runs annex code: a first registration, an overtake and an
    /// overtake naming the wrong position (which records a showing) all run with the annex's
    /// code replaced by a bare revert.
    function test_OwnPaths_RegisterRunsWithoutTheAnnex() public {
        uint256 id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3 b8c6");
        Auth[5] memory auths;
        for (uint256 i = 1; i <= 4; ++i) {
            auths[i] = _byAuthor(line[i]);
        }
        bytes32 shownHash = channel.hashMove(line[4]);
        _breakAnnex();

        vm.recordLogs();
        vm.prank(bob);
        channel.register(line[1], auths[1], line[2], auths[2], _noReceipt(), _direct(""), _frozen(line[2]));
        _absorb(vm.getRecordedLogs());
        assertEq(ref.channelGame(id).registeredPly, 2);

        vm.warp(block.timestamp + 5);
        vm.prank(carol);
        channel.register(
            line[3], auths[3], line[4], auths[4], _noReceipt(), _direct(""), _frozenWith(id, pos[id].clock ^ 1)
        );
        assertEq(ref.channelGame(id).registeredPly, 2, "wrong position: shown, not registered");

        vm.prank(carol);
        channel.register(line[3], auths[3], line[4], auths[4], _noReceipt(), _direct(""), _frozen(line[4]));
        assertEq(ref.channelGame(id).registeredPly, 4);

        vm.etch(channel.annex(), type(ChessChannelAnnex).runtimeCode);
        assertEq(channel.shownWhileFrozenAt(shownHash), block.timestamp);
    }
}
