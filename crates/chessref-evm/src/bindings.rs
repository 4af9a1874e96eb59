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

sol!(
    #[sol(all_derives)]
    ChessChannel,
    "artifacts/ChessChannel.json"
);
