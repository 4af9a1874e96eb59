//! `simulate --tournament` on revm: seeded knockouts whose every pairing, lot and prize the
//! contract and the Rust mirror must agree on, over every way a match can end.

use chessref_evm::RevmChain;
use chessref_evm::tournament_sim::{TournamentSimOptions, simulate_tournament};

#[test]
fn sixty_events_agree_with_the_mirror_on_every_path() {
    let options = TournamentSimOptions {
        events: 60,
        seed: 7,
        max_plies: 300,
    };
    let summary = simulate_tournament(RevmChain::new(), &options).expect("the simulation runs");
    assert_eq!(summary.mismatches, 0, "{:#?}", summary.mismatch_details);
    assert_eq!(summary.events + summary.refunded, 60);
    assert!(
        summary.refunded > 0,
        "an event that did not fill was refunded"
    );
    for path in [
        "board",
        "lot",
        "no_show",
        "stopped",
        "abandoned",
        "walkover",
        "void",
    ] {
        assert!(
            summary.paths.get(path).is_some_and(|&n| n > 0),
            "no match decided by {path}: {:?}",
            summary.paths
        );
    }
    // Every entrant of a played event claims, and its organiser its fee.
    assert!(summary.claims >= summary.events * 5);
}
