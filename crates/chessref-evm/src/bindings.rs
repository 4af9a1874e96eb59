//! alloy `sol!` bindings generated from the committed artifacts
//! (`artifacts/*.json`, written by `scripts/build-contracts.sh`).
#![allow(missing_docs, clippy::too_many_arguments)]

use alloy_sol_types::sol;

sol!(
    #[sol(all_derives)]
    ChessRulesView,
    "artifacts/ChessRulesView.json"
);

sol!(
    #[sol(all_derives)]
    ChessReferee,
    "artifacts/ChessReferee.json"
);

/// The annex's own bindings, apart: its ABI names the same shared types
/// (`IChessRefereeTypes`) as the referee's, which already has every function it serves.
mod annex {
    use alloy_sol_types::sol;

    sol!(
        #[sol(all_derives)]
        ChessRefereeAnnex,
        "artifacts/ChessRefereeAnnex.json"
    );
}
pub use annex::ChessRefereeAnnex;

/// The channel annex's own bindings, apart, for the same reason (`IChessChannelTypes`).
mod channel_annex {
    use alloy_sol_types::sol;

    sol!(
        #[sol(all_derives)]
        ChessChannelAnnex,
        "artifacts/ChessChannelAnnex.json"
    );
}
pub use channel_annex::ChessChannelAnnex;

sol!(
    #[sol(all_derives)]
    ChessChannel,
    "artifacts/ChessChannel.json"
);

sol!(
    #[sol(all_derives)]
    ChessChannelBlueprint,
    "artifacts/ChessChannelBlueprint.json"
);

/// The tournament's own bindings, apart: its ABI repeats some of the referee's errors
/// (`GameTerms` raises them) and declares its own `Withdrawn` and `Reentrancy`.
mod tournament {
    use alloy_sol_types::sol;

    sol!(
        #[sol(all_derives)]
        ChessTournament,
        "artifacts/ChessTournament.json"
    );

    sol!(
        #[sol(all_derives)]
        ChessTournamentBlueprint,
        "artifacts/ChessTournamentBlueprint.json"
    );
}
pub use tournament::{ChessTournament, ChessTournamentBlueprint, IChessTournamentTypes};

sol!(
    #[sol(all_derives)]
    OwnerWallet,
    "artifacts/OwnerWallet.json"
);

sol!(
    #[sol(all_derives)]
    /// The ERC-20 functions a player's seat uses for token stakes (`symbol` and
    /// `decimals` are optional in the standard: a token without them is read in base units).
    interface IERC20 {
        function balanceOf(address account) external view returns (uint256);
        function allowance(address owner, address spender) external view returns (uint256);
        function approve(address spender, uint256 amount) external returns (bool);
        function decimals() external view returns (uint8);
        function symbol() external view returns (string);
    }
);
