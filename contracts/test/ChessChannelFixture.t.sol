// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {Test} from "./utils/Test.sol";
import {ChessReferee} from "../src/ChessReferee.sol";
import {ChessChannel} from "../src/ChessChannel.sol";
import {ChessRules} from "../src/ChessRules.sol";
import {ChannelHash, Move, Delegation, Resignation, Result, Auth} from "../src/ChannelHash.sol";
import {SignatureCheck} from "../src/SignatureCheck.sol";

/// @notice The worked examples of docs/CHANNEL.md section 10 (tests/fixtures/channel-examples.json,
/// written by the Rust side) recomputed with this repository's contracts and libraries: the
/// domain separator, every type hash, hashStruct and digest, every signature's signer, the
/// refusals, and every invalid transition's code. The referee is deployed at the fixture's
/// addresses, so its channel verifies the fixture's signatures on-chain too.
contract ChessChannelFixtureTest is Test {
    string internal json;
    ChessReferee internal ref;
    ChessChannel internal channel;
    uint256 internal gameId;

    function setUp() public {
        json = vm.readFile(string.concat(vm.projectRoot(), "/tests/fixtures/channel-examples.json"));
        vm.chainId(vm.parseJsonUint(json, ".domain.chainId"));
        address deployer = vm.parseJsonAddress(json, ".domain.deployer");
        vm.setNonce(deployer, 0);
        vm.prank(deployer);
        ref = new ChessReferee();
        assertEq(address(ref), vm.parseJsonAddress(json, ".domain.referee"), "referee address");
        channel = ref.channel();
        gameId = vm.parseJsonUint(json, ".game.gameId");
        _openGame();
    }

    /// @dev Games 1..gameId-1 open, then the fixture's game created by white and joined by black.
    function _openGame() internal {
        for (uint256 i = 1; i < gameId; ++i) {
            ref.createGame(address(0), true, address(0), 0, 300, 0, 0, "");
        }
        address white = vm.parseJsonAddress(json, ".game.white");
        address black = vm.parseJsonAddress(json, ".game.black");
        vm.deal(white, 10 ether);
        vm.deal(black, 10 ether);
        bytes memory start = vm.parseJsonBytes(json, ".game.startState");
        uint32 initialTime = uint32(vm.parseJsonUint(json, ".game.initialTime"));
        uint32 increment = uint32(vm.parseJsonUint(json, ".game.increment"));
        uint32 window = uint32(vm.parseJsonUint(json, ".game.responseWindow"));
        vm.prank(white);
        uint256 id = ref.createChannelGame{value: 1 ether}(
            black, true, address(0), 1 ether, initialTime, increment, 0, start, window
        );
        assertEq(id, gameId);
        bytes32 terms = ref.getGame(id).terms;
        vm.prank(black);
        ref.joinGame{value: 1 ether}(id, terms);
    }

    // ---------------------------------------------------------------- reading

    function _move(string memory p) internal view returns (Move memory m) {
        m.gameId = vm.parseJsonUint(json, string.concat(p, ".gameId"));
        m.ply = uint32(vm.parseJsonUint(json, string.concat(p, ".ply")));
        m.mv = uint24(vm.parseJsonUint(json, string.concat(p, ".mv")));
        m.state = vm.parseJsonBytes(json, string.concat(p, ".state"));
        m.history = vm.parseJsonBytes32(json, string.concat(p, ".history"));
        m.whiteTime = uint32(vm.parseJsonUint(json, string.concat(p, ".whiteTime")));
        m.blackTime = uint32(vm.parseJsonUint(json, string.concat(p, ".blackTime")));
        m.previous = vm.parseJsonBytes32(json, string.concat(p, ".previous"));
    }

    function _delegation(uint256 i) internal view returns (Delegation memory d) {
        string memory p = string.concat(".delegations[", vm.toString(i), "]");
        d.gameId = vm.parseJsonUint(json, string.concat(p, ".gameId"));
        d.sessionKey = vm.parseJsonAddress(json, string.concat(p, ".sessionKey"));
        d.firstPly = uint32(vm.parseJsonUint(json, string.concat(p, ".firstPly")));
        d.lastPly = uint32(vm.parseJsonUint(json, string.concat(p, ".lastPly")));
    }

    /// @dev The authorisation at `p` (its signature and delegation index).
    function _auth(string memory p) internal view returns (Auth memory a) {
        a.signature = vm.parseJsonBytes(json, string.concat(p, ".signature"));
        int256 k = vm.parseJsonInt(json, string.concat(p, ".delegation"));
        if (k >= 0) {
            a.delegation = _delegation(uint256(k));
            a.delegationSignature =
                vm.parseJsonBytes(json, string.concat(".delegations[", vm.toString(uint256(k)), "].signature"));
        }
    }

    function _count(string memory array) internal view returns (uint256 n) {
        while (vm.keyExistsJson(json, string.concat(array, "[", vm.toString(n), "]"))) ++n;
    }

    function _separator() internal view returns (bytes32) {
        return ChannelHash.domainSeparator(
            vm.parseJsonUint(json, ".domain.chainId"), vm.parseJsonAddress(json, ".domain.verifyingContract")
        );
    }

    /// @notice SignatureCheck.recover over memory (it reads calldata).
    function recover(bytes32 digest, bytes calldata signature) external pure returns (address) {
        return SignatureCheck.recover(digest, signature);
    }

    /// @dev Checks the move at `p`: hashStruct, digest, status and (if signed) its signer.
    function _checkMove(string memory p) internal view returns (Move memory m) {
        m = _move(p);
        bytes32 h = channel.hashMove(m);
        assertEq(h, vm.parseJsonBytes32(json, string.concat(p, ".hash")), string.concat(p, ".hash"));
        bytes32 d = ChannelHash.digest(_separator(), h);
        assertEq(d, vm.parseJsonBytes32(json, string.concat(p, ".digest")), string.concat(p, ".digest"));
        uint256 status = vm.parseJsonUint(json, string.concat(p, ".status"));
        // 255: the fixture's mark for a state that is not valid (ENCODING.md section 7), whose
        // section 8 status is undefined
        if (status == 255) assertGt(ChessRules.validateState(m.state), 0, string.concat(p, ": invalid state"));
        else assertEq(ChessRules.status(m.state), status, string.concat(p, ".status"));
        bytes memory sig = vm.parseJsonBytes(json, string.concat(p, ".signature"));
        if (sig.length != 0) {
            assertEq(
                this.recover(d, sig),
                vm.parseJsonAddress(json, string.concat(p, ".signer")),
                string.concat(p, ".signer")
            );
        }
    }

    // ---------------------------------------------------------------- domain and types

    function test_Fixture_DomainSeparator() public view {
        bytes32 expected = vm.parseJsonBytes32(json, ".domain.separator");
        assertEq(_separator(), expected, "recomputed");
        assertEq(channel.domainSeparator(), expected, "the deployed channel's");
        assertEq(address(channel), vm.parseJsonAddress(json, ".domain.verifyingContract"));
        assertEq(keccak256(bytes(vm.parseJsonString(json, ".domain.name"))), ChannelHash.NAME_HASH);
        assertEq(keccak256(bytes(vm.parseJsonString(json, ".domain.version"))), ChannelHash.VERSION_HASH);
    }

    function test_Fixture_TypeHashes() public view {
        string[4] memory names = ["Move", "Delegation", "Resignation", "Result"];
        bytes32[4] memory ours = [
            ChannelHash.MOVE_TYPEHASH,
            ChannelHash.DELEGATION_TYPEHASH,
            ChannelHash.RESIGNATION_TYPEHASH,
            ChannelHash.RESULT_TYPEHASH
        ];
        for (uint256 i; i < 4; ++i) {
            string memory p = string.concat(".types.", names[i]);
            bytes32 typeHash = vm.parseJsonBytes32(json, string.concat(p, ".typeHash"));
            assertEq(keccak256(bytes(vm.parseJsonString(json, string.concat(p, ".type")))), typeHash, names[i]);
            assertEq(ours[i], typeHash, names[i]);
        }
    }

    // ---------------------------------------------------------------- messages

    function test_Fixture_StartMoveIsTheGamesStart() public view {
        Move memory s = _checkMove(".start");
        assertEq(s.state, vm.parseJsonBytes(json, ".game.startState"));
        assertEq(s.history, vm.parseJsonBytes32(json, ".game.startHistory"));
        assertEq(keccak256(abi.encodePacked(s.state, s.history)), ref.channelGame(gameId).startInner);
    }

    function test_Fixture_EveryMoveHashDigestAndSigner() public view {
        uint256 n = _count(".moves");
        assertEq(n, 4, "fool's mate");
        bytes32 previous = channel.hashMove(_move(".start"));
        for (uint256 i; i < n; ++i) {
            Move memory m = _checkMove(string.concat(".moves[", vm.toString(i), "]"));
            assertEq(m.previous, previous, "chained");
            (uint256 code,) = channel.transitionCode(
                gameId,
                vm.parseJsonUint(json, ".game.increment"),
                i == 0 ? _move(".start") : _move(string.concat(".moves[", vm.toString(i - 1), "]")),
                m
            );
            assertEq(code, 0, "valid successor");
            previous = channel.hashMove(m);
        }
    }

    function test_Fixture_EveryDelegationHashDigestAndSigner() public view {
        uint256 n = _count(".delegations");
        for (uint256 i; i < n; ++i) {
            string memory p = string.concat(".delegations[", vm.toString(i), "]");
            bytes32 h = channel.hashDelegation(_delegation(i));
            assertEq(h, vm.parseJsonBytes32(json, string.concat(p, ".hash")), p);
            bytes32 d = ChannelHash.digest(_separator(), h);
            assertEq(d, vm.parseJsonBytes32(json, string.concat(p, ".digest")), p);
            assertEq(
                this.recover(d, vm.parseJsonBytes(json, string.concat(p, ".signature"))),
                vm.parseJsonAddress(json, string.concat(p, ".signer")),
                p
            );
        }
    }

    function test_Fixture_ResignationHashDigestAndSigner() public view {
        Resignation memory r = Resignation({
            gameId: vm.parseJsonUint(json, ".resignation.gameId"),
            ply: uint32(vm.parseJsonUint(json, ".resignation.ply"))
        });
        bytes32 h = channel.hashResignation(r);
        assertEq(h, vm.parseJsonBytes32(json, ".resignation.hash"));
        bytes32 d = ChannelHash.digest(_separator(), h);
        assertEq(d, vm.parseJsonBytes32(json, ".resignation.digest"));
        assertEq(
            this.recover(d, vm.parseJsonBytes(json, ".resignation.signature")),
            vm.parseJsonAddress(json, ".resignation.signer")
        );
    }

    function _result() internal view returns (Result memory) {
        return Result({
            gameId: vm.parseJsonUint(json, ".result.gameId"),
            ply: uint32(vm.parseJsonUint(json, ".result.ply")),
            result: uint8(vm.parseJsonUint(json, ".result.result"))
        });
    }

    function test_Fixture_ResultHashDigestAndSigners() public view {
        bytes32 h = channel.hashResult(_result());
        assertEq(h, vm.parseJsonBytes32(json, ".result.hash"));
        bytes32 d = ChannelHash.digest(_separator(), h);
        assertEq(d, vm.parseJsonBytes32(json, ".result.digest"));
        assertEq(
            this.recover(d, vm.parseJsonBytes(json, ".result.white.signature")),
            vm.parseJsonAddress(json, ".result.white.signer")
        );
        assertEq(
            this.recover(d, vm.parseJsonBytes(json, ".result.black.signature")),
            vm.parseJsonAddress(json, ".result.black.signer")
        );
    }

    // ---------------------------------------------------------------- on the deployed channel

    function test_Fixture_ResultSettlesOnChain() public {
        channel.settle(_result(), _auth(".result.white"), _auth(".result.black"));
        ChessReferee.GameInfo memory g = ref.getGame(gameId);
        assertEq(g.result, vm.parseJsonUint(json, ".result.result"));
        assertEq(g.reason, 8);
    }

    function test_Fixture_ResignationSettlesOnChain() public {
        Resignation memory r = Resignation({
            gameId: vm.parseJsonUint(json, ".resignation.gameId"),
            ply: uint32(vm.parseJsonUint(json, ".resignation.ply"))
        });
        bool white = keccak256(bytes(vm.parseJsonString(json, ".resignation.by"))) == keccak256("white");
        channel.resignBySignature(r, _auth(".resignation"), white);
        assertEq(ref.getGame(gameId).result, white ? 2 : 1);
    }

    /// @notice Every signed pair of the transcript registers (the last, a mate, ends the game).
    function test_Fixture_EveryPairRegistersOnChain() public {
        uint256 n = _count(".moves");
        for (uint256 i; i < n; ++i) {
            uint256 snap = vm.snapshotState();
            string memory p = string.concat(".moves[", vm.toString(i), "]");
            string memory q = i == 0 ? ".start" : string.concat(".moves[", vm.toString(i - 1), "]");
            Auth memory qa = i == 0 ? _auth(".start") : _auth(q);
            vm.prank(ref.getGame(_move(p).gameId).white);
            channel.register(_move(q), qa, _move(p), _auth(p), 0, 0);
            if (vm.parseJsonUint(json, string.concat(p, ".status")) != 0) {
                assertEq(ref.getGame(gameId).phase, 3, "a decided position ends the game");
            } else {
                assertNotEq(ref.getGame(gameId).commitment, bytes32(0));
            }
            vm.revertToState(snap);
        }
    }

    function test_Fixture_EquivocationProvesOnChain() public {
        channel.proveEquivocation(
            _move(".negative.equivocation.a"),
            _auth(".negative.equivocation.a"),
            _move(".negative.equivocation.b"),
            _auth(".negative.equivocation.b")
        );
        assertEq(ref.getGame(gameId).reason, 12);
    }

    // ---------------------------------------------------------------- negative examples

    function test_Fixture_HighSTwinRefused() public view {
        bytes32 d = vm.parseJsonBytes32(json, ".negative.highS.digest");
        bytes memory sig = vm.parseJsonBytes(json, ".negative.highS.signature");
        assertEq(this.recover(d, sig), address(0), "refused");
        bytes32 r;
        bytes32 s;
        uint8 v;
        assembly ("memory-safe") {
            r := mload(add(sig, 32))
            s := mload(add(sig, 64))
            v := byte(0, mload(add(sig, 96)))
        }
        assertEq(
            ecrecover(d, v, r, s), vm.parseJsonAddress(json, ".negative.highS.signer"), "plain ecrecover accepts it"
        );
    }

    function test_Fixture_WrongSignerRefusedOnChain() public {
        Move memory m = _checkMove(".negative.wrongSigner");
        string memory q = string.concat(".moves[", vm.toString(m.ply - 2), "]");
        Move memory prev = _move(q);
        Auth memory qa = _auth(q);
        Auth memory ma = _auth(".negative.wrongSigner");
        address author = vm.parseJsonAddress(
            json, string.concat(".game.", vm.parseJsonString(json, ".negative.wrongSigner.author"))
        );
        vm.prank(ref.getGame(m.gameId).white);
        vm.expectRevert(abi.encodeWithSelector(ChessChannel.BadSignature.selector, author));
        channel.register(prev, qa, m, ma, 0, 0);
    }

    function test_Fixture_OtherChainSeparatorAndDigest() public {
        uint256 other = vm.parseJsonUint(json, ".negative.otherChain.chainId");
        address vc = vm.parseJsonAddress(json, ".domain.verifyingContract");
        bytes32 sep = ChannelHash.domainSeparator(other, vc);
        assertEq(sep, vm.parseJsonBytes32(json, ".negative.otherChain.separator"));
        bytes32 h = channel.hashMove(_move(".moves[0]"));
        assertEq(ChannelHash.digest(sep, h), vm.parseJsonBytes32(json, ".negative.otherChain.digest"));
        vm.chainId(other);
        assertEq(channel.domainSeparator(), sep, "the deployed channel on that chain");
    }

    function test_Fixture_EveryTransitionCode() public view {
        uint256 n = _count(".negative.transitions");
        assertGt(n, 0);
        uint256 inc = vm.parseJsonUint(json, ".game.increment");
        for (uint256 i; i < n; ++i) {
            string memory p = string.concat(".negative.transitions[", vm.toString(i), "]");
            Move memory q = _move(string.concat(p, ".previous"));
            Move memory m = _checkMove(string.concat(p, ".move"));
            (uint256 code, uint256 rule) = channel.transitionCode(gameId, inc, q, m);
            string memory name = vm.parseJsonString(json, string.concat(p, ".name"));
            assertEq(code, vm.parseJsonUint(json, string.concat(p, ".code")), name);
            assertEq(rule, vm.parseJsonUint(json, string.concat(p, ".ruleCode")), name);
        }
    }
}
