//! The watchtower's reaction time on anvil (README, "The relay and the watchtower"): a
//! `chessref watch` loop running at its default poll (1 s), and `CHESSREF_WATCH_GAMES`
//! channel games (default 8) in which white registers a stale pair while the relay holds
//! two more plies: the time from the registration's receipt to the watchtower's
//! overtaking receipt, median and max.
//!
//! Run: `cargo bench -p chessref-index --bench watch`.

#[path = "../tests/common/mod.rs"]
mod common;
#[path = "../tests/common/watch.rs"]
mod watch;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use watch::{Setup, play, registration};

fn main() {
    let games = std::env::var("CHESSREF_WATCH_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8usize)
        .max(1);
    let poll = Duration::from_millis(1_000);
    let mut s = Setup::new("watch-bench");
    let mut played = Vec::new();
    for _ in 0..games {
        let mut g = s.game();
        play(&mut g, &["e2e4", "e7e5", "g1f3", "b8c6"]);
        s.relay(&g.transcript());
        played.push(g);
    }
    let stop = Arc::new(AtomicBool::new(false));
    let (answered, answers) = mpsc::channel();
    let tower = {
        let mut tower = s.watchtower();
        let stop = stop.clone();
        std::thread::spawn(move || {
            tower
                .run(
                    poll,
                    || stop.load(Ordering::Relaxed),
                    |action| {
                        let _ = answered.send((Instant::now(), action.clone()));
                    },
                )
                .expect("the watchtower runs");
        })
    };
    let mut reactions = Vec::new();
    for g in &played {
        let stale = registration(&g.transcript(), 2);
        s.referee
            .send_channel(g.game.white, &stale)
            .expect("register");
        let registered = Instant::now();
        let (at, action) = answers
            .recv_timeout(Duration::from_secs(30))
            .expect("the watchtower answers within 30 s");
        assert_eq!(action.game, g.game.game_id);
        assert_eq!(action.call, "register", "{action}");
        assert!(action.outcome.is_ok(), "{action}");
        reactions.push(at.duration_since(registered));
    }
    stop.store(true, Ordering::Relaxed);
    tower.join().expect("the watchtower thread");
    reactions.sort();
    println!(
        "watchtower reaction, registration receipt to overtaking receipt, poll {} ms, {} games: median {:.0} ms, max {:.0} ms",
        poll.as_millis(),
        reactions.len(),
        reactions[reactions.len() / 2].as_secs_f64() * 1e3,
        reactions.last().expect("games").as_secs_f64() * 1e3
    );
}
