// SPDX-License-Identifier: MIT OR Apache-2.0
pragma solidity ^0.8.30;

import {RefereeBase} from "./ChessRefereeBase.t.sol";
import {ChessReferee} from "../src/ChessReferee.sol";
import {ChessRefereeAnnex} from "../src/ChessRefereeAnnex.sol";
import {ChessChannelAnnex} from "../src/ChessChannelAnnex.sol";
import {ChessChannelBlueprint} from "../src/ChessChannelBlueprint.sol";
import {ChessTournamentBlueprint} from "../src/ChessTournamentBlueprint.sol";
import {IChessReferee, IChessRefereeTypes} from "../src/IChessReferee.sol";

/// @notice The split of the referee into its own code and the annex its fallback runs
/// (issue 27): the annex acts in the referee's storage through the referee only, the
/// fallback takes no ETH and answers nothing the annex does not define, and a referee
/// cannot be built without an annex.
contract ChessRefereeAnnexTest is RefereeBase {
    /// @dev The annex's functions act on the referee's games and credits, with the
    /// caller as `msg.sender`: a cancel through the referee credits the creator there.
    function test_AnnexRunsInTheRefereesStorage() public {
        uint256 id = _create(alice, bob, true, STAKE, "");
        vm.prank(alice);
        ref.cancelGame(id);
        assertEq(ref.getGame(id).phase, PHASE_CANCELLED);
        assertEq(ref.credits(alice, address(0)), STAKE);
        uint256 before = alice.balance;
        vm.prank(alice);
        ref.withdrawTo(address(0), alice);
        assertEq(alice.balance, before + STAKE);
    }

    /// @dev Called directly, the annex sees its own storage, which holds no game and no
    /// credit: nothing of the referee's can be cancelled, claimed or withdrawn there.
    function test_AnnexCalledDirectlyActsOnNothing() public {
        uint256 id = _startGame();
        IChessReferee direct = IChessReferee(ref.annex());
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.GameNotOpen.selector, id));
        direct.cancelGame(id);
        Position storage p = pos[id];
        vm.warp(block.timestamp + 10 days);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.GameNotRunning.selector, id));
        direct.claimTimeout(id, p.state, p.history, p.clock);
        vm.prank(alice);
        vm.expectRevert(IChessRefereeTypes.NothingToWithdraw.selector);
        direct.withdrawTo(address(0), alice);
        assertEq(direct.getGame(id).phase, 0);
        // and the referee's game is untouched
        assertEq(ref.getGame(id).phase, PHASE_RUNNING);
    }

    /// @dev No annex function takes ETH: the fallback refuses any value.
    function test_FallbackRefusesEth() public {
        uint256 id = _create(alice, bob, true, STAKE, "");
        vm.prank(alice);
        (bool ok,) = address(ref).call{value: 1}(abi.encodeCall(IChessReferee.cancelGame, (id)));
        assertFalse(ok, "a call through the fallback with ETH must revert");
        vm.prank(alice);
        (ok,) = address(ref).call{value: 1}("");
        assertFalse(ok, "plain ETH must revert");
        assertEq(ref.getGame(id).phase, PHASE_OPEN);
    }

    /// @dev A selector neither contract defines reverts, with no data.
    function test_UnknownSelectorReverts() public {
        (bool ok, bytes memory data) = address(ref).call(abi.encodeWithSignature("noSuchFunction(uint256)", 1));
        assertFalse(ok);
        assertEq(data.length, 0);
    }

    /// @dev A referee needs an annex with code.
    function test_ConstructorRefusesAnAnnexWithoutCode() public {
        address blueprint = address(new ChessChannelBlueprint());
        address channelAnnex = address(new ChessChannelAnnex());
        address tournamentBlueprint = address(new ChessTournamentBlueprint());
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.BadAnnex.selector, address(0xdead)));
        new ChessReferee(blueprint, address(0xdead), channelAnnex, tournamentBlueprint);
    }

    /// @dev A referee needs a channel annex with code.
    function test_ConstructorRefusesAChannelAnnexWithoutCode() public {
        address blueprint = address(new ChessChannelBlueprint());
        address annex = address(new ChessRefereeAnnex());
        address tournamentBlueprint = address(new ChessTournamentBlueprint());
        vm.expectRevert(abi.encodeWithSelector(IChessRefereeTypes.BadAnnex.selector, address(0xbeef)));
        new ChessReferee(blueprint, annex, address(0xbeef), tournamentBlueprint);
    }

    /// @dev Every contract keeps the room issue 27 asks for: 2,048 bytes under EIP-170.
    function test_RoomUnderTheSizeLimit() public {
        assertLe(address(ref).code.length, 24_576 - 2_048, "ChessReferee");
        assertLe(ref.annex().code.length, 24_576 - 2_048, "ChessRefereeAnnex");
        assertLe(address(ref.channel()).code.length, 24_576 - 2_048, "ChessChannel");
        assertLe(ref.channel().annex().code.length, 24_576 - 2_048, "ChessChannelAnnex");
        assertEq(address(new ChessChannelAnnex()).code.length, ref.channel().annex().code.length);
        assertEq(address(new ChessRefereeAnnex()).code.length, ref.annex().code.length);
        assertLe(ref.tournament().code.length, 24_576 - 2_048, "ChessTournament");
        assertGt(ref.tournament().code.length, 0);
    }
}
