// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {ChannelBase} from "./ChessChannelBase.t.sol";
import {ChessReferee} from "../src/ChessReferee.sol";
import {ChessRefereeAnnex} from "../src/ChessRefereeAnnex.sol";
import {ChessChannelAnnex} from "../src/ChessChannelAnnex.sol";
import {IChessReferee} from "../src/IChessReferee.sol";
import {ChessChannelBlueprint} from "../src/ChessChannelBlueprint.sol";
import {ChessTournamentBlueprint} from "../src/ChessTournamentBlueprint.sol";
import {IChessChannel, IChessChannelTypes} from "../src/IChessChannel.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {Move, Delegation, Resignation, Result, Auth} from "../src/ChannelHash.sol";
import {OwnedWallet, RefusingWallet, GasBurningWallet} from "./mocks/Wallets.sol";

/// @notice Attacks on the channel's signatures: replay across games, chains and
/// deployments, malleable and malformed signatures, wrong signers, session keys outside
/// their range or rotated, and contract-wallet players (ERC-1271).
contract ChessChannelAttacksTest is ChannelBase {
    /// @dev A result for game `id` signed directly by both players.
    function _signedResult(uint256 id, uint8 result)
        internal
        view
        returns (Result memory r, Auth memory w, Auth memory b)
    {
        r = Result({gameId: id, ply: 10, position: 0, result: result});
        bytes32 d = _resultDigest(r);
        w = _direct(_sig(ALICE_PK, d));
        b = _direct(_sig(BOB_PK, d));
    }

    // ---------------------------------------------------------------- replay

    function test_Replay_ResultOfOneGameRefusedInAnother() public {
        uint256 first = _startChannelGame();
        uint256 second = _startChannelGame();
        (Result memory r, Auth memory w, Auth memory b) = _signedResult(first, WHITE_WINS);
        r.gameId = second;
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.settle(r, w, b);
    }

    function test_Replay_MoveOfOneGameRefusedInAnother() public {
        uint256 first = _startChannelGame();
        _extend("e2e4 e7e5");
        Move memory q = line[1];
        Move memory m = line[2];
        (Auth memory qa, Auth memory ma) = (_byAuthor(q), _byAuthor(m));
        _startChannelGame();
        q.gameId = first + 1;
        m.gameId = first + 1;
        vm.prank(ref.getGame(m.gameId).white);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, bob));
        channel.register(q, qa, m, ma, _noReceipt(), _direct(""), _frozen(m));
    }

    function test_Replay_OnAnotherChainRefused() public {
        uint256 id = _startChannelGame();
        (Result memory r, Auth memory w, Auth memory b) = _signedResult(id, WHITE_WINS);
        bytes32 here = channel.domainSeparator();
        vm.chainId(5);
        assertNotEq(channel.domainSeparator(), here);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.settle(r, w, b);
    }

    function test_Replay_SignedForThisChainValidAfterChainIdRestored() public {
        uint256 id = _startChannelGame();
        (Result memory r, Auth memory w, Auth memory b) = _signedResult(id, WHITE_WINS);
        vm.chainId(5);
        vm.chainId(31337);
        channel.settle(r, w, b);
        assertEq(_credit(alice), 2 * STAKE);
    }

    function test_Replay_AgainstAnotherDeploymentRefused() public {
        uint256 id = _startChannelGame();
        (Result memory r, Auth memory w, Auth memory b) = _signedResult(id, WHITE_WINS);
        // the same game id, players and terms on a second referee (hence a second channel)
        IChessReferee other = IChessReferee(
            address(
                new ChessReferee(
                    address(new ChessChannelBlueprint()),
                    address(new ChessRefereeAnnex()),
                    address(new ChessChannelAnnex()),
                    address(new ChessTournamentBlueprint())
                )
            )
        );
        vm.prank(alice);
        uint256 otherId =
            other.createChannelGame{value: STAKE}(bob, true, address(0), STAKE, INITIAL, INCREMENT, 0, "", WINDOW);
        bytes32 terms = other.getGame(otherId).terms;
        vm.prank(bob);
        other.joinGame{value: STAKE}(otherId, terms);
        assertEq(otherId, id);
        IChessChannel otherChannel = other.channel();
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        otherChannel.settle(r, w, b);
    }

    function test_Replay_MoveAtAnotherPlyRefused() public {
        _startChannelGame();
        _extend("g1f3 g8f6 f3g1 f6g8 g1f3");
        // the same move (g1f3) signed at ply 1, presented as ply 5's
        Move memory m = line[5];
        Auth memory a = _byAuthor(line[1]);
        Auth memory qa = _byAuthor(line[4]);
        vm.prank(ref.getGame(m.gameId).white);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.register(line[4], qa, m, a, _noReceipt(), _direct(""), _frozen(m));
    }

    // ---------------------------------------------------------------- malformed signatures

    /// @dev alice's result signature turned into its high-s twin (same signer by ecrecover).
    function test_Signature_HighSTwinRefused() public {
        uint256 id = _startChannelGame();
        (Result memory r, Auth memory w, Auth memory b) = _signedResult(id, WHITE_WINS);
        (bytes32 rr, bytes32 ss, uint8 v) = _split(w.signature);
        bytes32 highS = bytes32(N - uint256(ss));
        uint8 flipped = v == 27 ? 28 : 27;
        assertEq(ecrecover(_resultDigest(r), flipped, rr, highS), alice, "the twin recovers to alice");
        w.signature = abi.encodePacked(rr, highS, flipped);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.settle(r, w, b);
    }

    function test_Signature_VZeroOrOneRefused() public {
        uint256 id = _startChannelGame();
        (Result memory r, Auth memory w, Auth memory b) = _signedResult(id, WHITE_WINS);
        (bytes32 rr, bytes32 ss, uint8 v) = _split(w.signature);
        w.signature = abi.encodePacked(rr, ss, v - 27);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.settle(r, w, b);
    }

    function test_Signature_64ByteCompactFormRefused() public {
        uint256 id = _startChannelGame();
        (Result memory r, Auth memory w, Auth memory b) = _signedResult(id, WHITE_WINS);
        (bytes32 rr, bytes32 ss,) = _split(w.signature);
        w.signature = abi.encodePacked(rr, ss);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.settle(r, w, b);
    }

    function test_Signature_ZeroRRefused() public {
        uint256 id = _startChannelGame();
        (Result memory r, Auth memory w, Auth memory b) = _signedResult(id, WHITE_WINS);
        (, bytes32 ss, uint8 v) = _split(w.signature);
        w.signature = abi.encodePacked(bytes32(0), ss, v);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.settle(r, w, b);
    }

    function test_Signature_WrongSignerRefused() public {
        uint256 id = _startChannelGame();
        Result memory r = Result({gameId: id, ply: 10, position: 0, result: BLACK_WINS});
        bytes32 d = _resultDigest(r);
        (Auth memory w, Auth memory b) = (_direct(_sig(CAROL_PK, d)), _direct(_sig(BOB_PK, d)));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.settle(r, w, b);
    }

    function _split(bytes memory sig) internal pure returns (bytes32 r, bytes32 s, uint8 v) {
        assembly ("memory-safe") {
            r := mload(add(sig, 32))
            s := mload(add(sig, 64))
            v := byte(0, mload(add(sig, 96)))
        }
    }

    // ---------------------------------------------------------------- session keys

    function test_SessionKey_OutsideItsPlyRangeRefused() public {
        uint256 id = _startChannelGame();
        Result memory r = Result({gameId: id, ply: 11, position: 0, result: DRAW});
        bytes32 d = _resultDigest(r);
        Auth memory w = _bySession(ALICE_PK, SESSION1_PK, _delegation(id, SESSION1_PK, 1, 10), d);
        Auth memory b = _direct(_sig(BOB_PK, d));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.settle(r, w, b);
    }

    function test_SessionKey_DelegationOfAnotherGameRefused() public {
        uint256 id = _startChannelGame();
        Result memory r = Result({gameId: id, ply: 5, position: 0, result: DRAW});
        bytes32 d = _resultDigest(r);
        Auth memory w = _bySession(ALICE_PK, SESSION1_PK, _delegation(id + 1, SESSION1_PK, 1, 10), d);
        Auth memory b = _direct(_sig(BOB_PK, d));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.settle(r, w, b);
    }

    function test_SessionKey_DelegationSignedByOtherPlayerRefused() public {
        uint256 id = _startChannelGame();
        Result memory r = Result({gameId: id, ply: 5, position: 0, result: DRAW});
        bytes32 d = _resultDigest(r);
        // bob delegates "for alice": the delegation must be signed by the player it speaks for
        Auth memory w = _bySession(BOB_PK, SESSION1_PK, _delegation(id, SESSION1_PK, 1, 10), d);
        Auth memory b = _direct(_sig(BOB_PK, d));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.settle(r, w, b);
    }

    function test_SessionKey_OtherKeyThanDelegatedRefused() public {
        uint256 id = _startChannelGame();
        Result memory r = Result({gameId: id, ply: 5, position: 0, result: DRAW});
        bytes32 d = _resultDigest(r);
        Auth memory w = _bySession(ALICE_PK, SESSION1_PK, _delegation(id, SESSION1_PK, 1, 10), d);
        w.signature = _sig(SESSION2_PK, d);
        Auth memory b = _direct(_sig(BOB_PK, d));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.settle(r, w, b);
    }

    /// @dev White signs plies 1..4 with key 1 and from ply 5 with key 2.
    function _rotatedGame() internal returns (uint256 id, Delegation memory d1, Delegation memory d2) {
        id = _startChannelGame();
        _extend("e2e4 e7e5 g1f3 b8c6 f1c4 g8f6");
        d1 = _delegation(id, SESSION1_PK, 1, 4);
        d2 = _delegation(id, SESSION2_PK, 5, type(uint32).max);
    }

    function _whiteAuth(Move memory m, Delegation memory d1, Delegation memory d2) internal view returns (Auth memory) {
        return m.ply <= 4
            ? _bySession(ALICE_PK, SESSION1_PK, d1, _moveDigest(m))
            : _bySession(ALICE_PK, SESSION2_PK, d2, _moveDigest(m));
    }

    function test_SessionKey_RotatedMidGameRegistersAcrossTheRotation() public {
        (uint256 id, Delegation memory d1, Delegation memory d2) = _rotatedGame();
        // ply 4 (bob, direct) then ply 5 (white's key 2)
        Auth memory qa = _byAuthor(line[4]);
        Auth memory ma = _whiteAuth(line[5], d1, d2);
        vm.prank(ref.getGame(line[5].gameId).white);
        vm.recordLogs();
        channel.register(line[4], qa, line[5], ma, _noReceipt(), _direct(""), _frozen(line[5]));
        _absorb(vm.getRecordedLogs());
        assertEq(_ply(id), 5);
        // then ply 6 (bob) over ply 5 (key 2) overtakes
        qa = _whiteAuth(line[5], d1, d2);
        ma = _byAuthor(line[6]);
        vm.prank(ref.getGame(line[6].gameId).white);
        vm.recordLogs();
        channel.register(line[5], qa, line[6], ma, _noReceipt(), _direct(""), _frozen(line[6]));
        _absorb(vm.getRecordedLogs());
        assertEq(_ply(id), 6);
    }

    function test_SessionKey_RotatedKeyOneRefusedAfterItsRange() public {
        (, Delegation memory d1,) = _rotatedGame();
        Auth memory qa = _byAuthor(line[4]);
        Auth memory ma = _bySession(ALICE_PK, SESSION1_PK, d1, _moveDigest(line[5]));
        vm.prank(ref.getGame(line[5].gameId).white);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, alice));
        channel.register(line[4], qa, line[5], ma, _noReceipt(), _direct(""), _frozen(line[5]));
    }

    function test_SessionKey_RotatedKeyOneStillValidInItsRange() public {
        (uint256 id, Delegation memory d1, Delegation memory d2) = _rotatedGame();
        Auth memory qa = _whiteAuth(line[3], d1, d2);
        Auth memory ma = _byAuthor(line[4]);
        vm.prank(ref.getGame(line[4].gameId).white);
        channel.register(line[3], qa, line[4], ma, _noReceipt(), _direct(""), _frozen(line[4]));
        assertNotEq(ref.getGame(id).commitment, bytes32(0));
    }

    // ---------------------------------------------------------------- contract wallets

    /// @dev A channel game with an ERC-1271 wallet (owned by alice's key) as white.
    function _walletGame() internal returns (uint256 id, OwnedWallet wallet) {
        wallet = new OwnedWallet(alice);
        vm.deal(address(wallet), 10 ether);
        vm.prank(address(wallet));
        id = ref.createChannelGame{value: STAKE}(bob, true, address(0), STAKE, INITIAL, INCREMENT, 0, "", WINDOW);
        _join(id, bob, STAKE);
    }

    function test_EoaWithCode_CannotDisownItsEcdsaSignatures() public {
        // bob is lost after ply 4 and, like an EIP-7702 account, gets code that refuses
        // every ERC-1271 question: the signatures his key made still count.
        uint256 id = _startChannelGame();
        _extend("f2f3 e7e5 g2g4 d8h4");
        vm.etch(bob, type(RefusingWallet).runtimeCode);
        _register(4);
        // v2: the registered mate ends the game once its window is over
        vm.warp(block.timestamp + WINDOW);
        ref.finishRegistered(id, pos[id].state, pos[id].history, pos[id].clock);
        (uint8 result, uint8 reason) = _result(id);
        assertEq(result, BLACK_WINS);
        assertEq(reason, 1);
    }

    /// @dev v2 (section 5): ERC-1271 is asked only by `pin`; a wallet's signature counts
    /// once its digest is pinned, never before.
    function test_ContractWallet_SignsResultDirectlyOncePinned() public {
        (uint256 id, OwnedWallet wallet) = _walletGame();
        (Result memory r, Auth memory w, Auth memory b) = _signedResult(id, WHITE_WINS);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, address(wallet)));
        channel.settle(r, w, b);
        channel.pin(address(wallet), _resultDigest(r), w.signature);
        channel.settle(r, w, b);
        assertEq(ref.credits(address(wallet), address(0)), 2 * STAKE);
    }

    function test_ContractWallet_DelegatesToSessionKeyOncePinned() public {
        (uint256 id, OwnedWallet wallet) = _walletGame();
        Result memory r = Result({gameId: id, ply: 3, position: 0, result: WHITE_WINS});
        bytes32 d = _resultDigest(r);
        Delegation memory del = _delegation(id, SESSION1_PK, 1, 100);
        Auth memory w = _bySession(ALICE_PK, SESSION1_PK, del, d);
        Auth memory b = _direct(_sig(BOB_PK, d));
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, address(wallet)));
        channel.settle(r, w, b);
        // the wallet's ERC-1271 check accepts the owner's signature of the delegation
        vm.prank(carol); // anyone may pin
        channel.pin(address(wallet), channel.digestOf(channel.hashDelegation(del)), w.delegationSignature);
        channel.settle(r, w, b);
        assertEq(ref.credits(address(wallet), address(0)), 2 * STAKE);
    }

    function test_ContractWallet_WrongOwnerRefused() public {
        (uint256 id,) = _walletGame();
        Result memory r = Result({gameId: id, ply: 3, position: 0, result: WHITE_WINS});
        bytes32 d = _resultDigest(r);
        (Auth memory w, Auth memory b) = (_direct(_sig(CAROL_PK, d)), _direct(_sig(BOB_PK, d)));
        address white = _white(id);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, white));
        channel.pin(white, d, w.signature);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, white));
        channel.settle(r, w, b);
    }

    /// @dev v2: the wallet's answer is asked by `pin` (which refuses), not by `settle`.
    function test_ContractWallet_WrongMagicValueRefused() public {
        RefusingWallet wallet = new RefusingWallet();
        uint256 id = _walletVs(address(wallet));
        (Result memory r, Auth memory w, Auth memory b) = _signedResult(id, WHITE_WINS);
        bytes32 d = _resultDigest(r);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, address(wallet)));
        channel.pin(address(wallet), d, w.signature);
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, address(wallet)));
        channel.settle(r, w, b);
    }

    /// @dev v2: the bounded ERC-1271 call is `pin`'s; `settle` never calls the wallet.
    function test_ContractWallet_GasBombBoundedAndRefused() public {
        GasBurningWallet wallet = new GasBurningWallet();
        uint256 id = _walletVs(address(wallet));
        (Result memory r, Auth memory w,) = _signedResult(id, WHITE_WINS);
        bytes32 d = _resultDigest(r);
        uint256 before = gasleft();
        vm.expectRevert(abi.encodeWithSelector(IChessChannelTypes.BadSignature.selector, address(wallet)));
        channel.pin{gas: 1_000_000}(address(wallet), d, w.signature);
        assertLt(before - gasleft(), 200_000, "the wallet's check is bounded");
        assertFalse(channel.pinned(address(wallet), d));
    }

    function _walletVs(address wallet) internal returns (uint256 id) {
        vm.deal(wallet, 10 ether);
        vm.prank(wallet);
        id = ref.createChannelGame{value: STAKE}(bob, true, address(0), STAKE, INITIAL, INCREMENT, 0, "", WINDOW);
        _join(id, bob, STAKE);
    }

    function _white(uint256 id) internal view returns (address) {
        return ref.getGame(id).white;
    }
}
