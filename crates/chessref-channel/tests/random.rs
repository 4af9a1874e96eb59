//! Seeded random transcripts: honest games verify from the first ply to the last;
//! one cheat injected at a random ply is found at exactly that ply, with the
//! transition code or signature error it is, and the proof call when it is provable.

use alloy_primitives::{B256, U256, aliases::U24};
use alloy_signer_local::PrivateKeySigner;
use chessref_channel::messages::author_of;
use chessref_channel::signer::{delegate, sign};
use chessref_channel::transcript::{
    DelegationEntry, MoveEntry, ReceiptEntry, Side, SignatureEntry, receipt_of,
};
use chessref_channel::{
    ChannelDomain, ChannelGame, Move, NoPins, Transcript, TranscriptError, successor,
};
use chessref_core::{Color, State, Status};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const INCREMENT: u32 = 3;
/// When the games start (unix seconds).
const JOINED_AT: u64 = 1_800_000_000;
/// Session keys' expiry: long after every game.
const EXPIRES: u64 = JOINED_AT + 100_000;
/// The verifier's clock.
const NOW: u64 = JOINED_AT + 5_000;

struct Players {
    white: PrivateKeySigner,
    black: PrivateKeySigner,
    white_session: PrivateKeySigner,
    black_session: PrivateKeySigner,
}

fn key(rng: &mut ChaCha8Rng) -> PrivateKeySigner {
    loop {
        let bytes: [u8; 32] = rng.random();
        if let Ok(k) = PrivateKeySigner::from_bytes(&B256::from(bytes)) {
            return k;
        }
    }
}

/// An honest game of up to `plies` random legal moves, stamped a few seconds apart;
/// moves (and the receipts of about half of them) signed directly or by each side's
/// session key at random.
fn honest(rng: &mut ChaCha8Rng, game_id: u64, plies: usize) -> (Transcript, Players, Vec<Move>) {
    let p = Players {
        white: key(rng),
        black: key(rng),
        white_session: key(rng),
        black_session: key(rng),
    };
    let domain = ChannelDomain {
        chain_id: rng.random_range(1..100_000),
        verifying_contract: rng.random::<[u8; 20]>().into(),
    };
    let game = ChannelGame {
        game_id: U256::from(game_id),
        white: p.white.address(),
        black: p.black.address(),
        initial_time: 600,
        increment: INCREMENT,
        response_window: 300,
        start_state: None,
    };
    let id = game.game_id;
    let delegations = [
        (Side::White, &p.white, &p.white_session),
        (Side::Black, &p.black, &p.black_session),
    ]
    .iter()
    .map(|(side, wallet, session)| {
        let d = delegate(wallet, &domain, id, session.address(), 1, u32::MAX, EXPIRES).unwrap();
        DelegationEntry::of(*side, &d)
    })
    .collect();
    let mut moves = vec![game.start_move().unwrap()];
    let mut entries = Vec::new();
    let mut clock = JOINED_AT;
    for _ in 0..plies {
        let last = moves.last().unwrap();
        let state = State::from_bytes(&last.state).unwrap();
        if state.status() != Status::Ongoing {
            break;
        }
        let legal = state.legal_moves();
        let mv = legal[rng.random_range(0..legal.len())];
        // At most 14 s a move: 40 moves a side never reach 600 s + the increments.
        clock += rng.random_range(0..15);
        let next = successor(last, mv, clock, INCREMENT).unwrap();
        let keys = |c: Color| match c {
            Color::White => (&p.white, &p.white_session, 0),
            Color::Black => (&p.black, &p.black_session, 1),
        };
        let author = author_of(&next).unwrap();
        let (wallet, session, index) = keys(author);
        let mut e = if rng.random_bool(0.5) {
            MoveEntry::signed(&next, sign(wallet, &domain, &next).unwrap(), -1)
        } else {
            MoveEntry::signed(&next, sign(session, &domain, &next).unwrap(), index)
        };
        if rng.random_bool(0.5) {
            let receipt = receipt_of(&next, clock + rng.random_range(0..5));
            let (wallet, session, index) = keys(!author);
            let (key, delegation) = if rng.random_bool(0.5) {
                (wallet, -1)
            } else {
                (session, index)
            };
            e.receipt = Some(ReceiptEntry {
                seen_at: receipt.seenAt,
                signed: SignatureEntry {
                    signature: sign(key, &domain, &receipt).unwrap(),
                    delegation,
                },
            });
        }
        entries.push(e);
        moves.push(next);
    }
    (
        Transcript {
            domain,
            game,
            delegations,
            moves: entries,
            resignation: None,
            result: None,
        },
        p,
        moves,
    )
}

#[test]
fn test_honest_random_games_verify_to_the_end() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xc4a7);
    for game in 1..=60 {
        let (t, _, moves) = honest(&mut rng, game, 80);
        let report = t.verify(&NoPins, NOW).unwrap();
        assert_eq!(report.error, None, "game {game}");
        assert_eq!(report.valid_plies as usize, moves.len() - 1);
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(
            Transcript::from_json(&json).unwrap(),
            t,
            "a transcript survives JSON"
        );
    }
}

#[test]
fn test_one_cheat_is_found_at_its_ply() {
    let mut rng = ChaCha8Rng::seed_from_u64(0xbad);
    let mut kinds = [0usize; 8];
    for game in 1..=300 {
        let (mut t, p, moves) = honest(&mut rng, game, 40);
        if moves.len() < 3 {
            continue;
        }
        let at = rng.random_range(1..moves.len()); // ply of the cheat
        let honest = &moves[at];
        let author = author_of(honest).unwrap();
        let wallet = if author == Color::White {
            &p.white
        } else {
            &p.black
        };
        let kind = rng.random_range(0..8);
        kinds[kind] += 1;
        let resign = |m: &Move| MoveEntry::signed(m, sign(wallet, &t.domain, m).unwrap(), -1);
        let (bad, expect_code) = match kind {
            // A field changed after signing: the signature no longer covers it.
            0 => {
                let mut e = t.moves[at - 1].clone();
                e.white_time ^= 1;
                (e, None)
            }
            // The opponent's time cut, signed.
            1 => {
                let mut m = honest.clone();
                if author == Color::White {
                    m.blackTime = m.blackTime.saturating_sub(5)
                } else {
                    m.whiteTime = m.whiteTime.saturating_sub(5)
                };
                if m == *honest {
                    continue;
                }
                (resign(&m), Some(4))
            }
            // Another piece's move with this move's resulting state, signed.
            2 => {
                let state = State::from_bytes(&moves[at - 1].state).unwrap();
                let legal = state.legal_moves();
                let other = legal
                    .iter()
                    .map(|m| chessref_core::RawMove::from(*m).packed())
                    .find(|p| *p != honest.packed());
                let Some(other) = other else { continue };
                (
                    resign(&Move {
                        mv: U24::from(other),
                        ..honest.clone()
                    }),
                    Some(7),
                )
            }
            // An illegal move (to an off-board square), signed.
            3 => (
                resign(&Move {
                    mv: U24::from(0x0000_0800u32),
                    ..honest.clone()
                }),
                Some(6),
            ),
            // A wrong history, signed.
            4 => (
                resign(&Move {
                    history: B256::repeat_byte(7),
                    ..honest.clone()
                }),
                Some(8),
            ),
            // Stamped before its predecessor, signed.
            5 => {
                if at == 1 {
                    continue; // the start move is stamped 0
                }
                (
                    resign(&Move {
                        timestamp: moves[at - 1].timestamp - 1,
                        ..honest.clone()
                    }),
                    Some(4),
                )
            }
            // One second more than the author has left, signed.
            6 => {
                let mut m = honest.clone();
                if author == Color::White {
                    m.whiteTime += 1
                } else {
                    m.blackTime += 1
                };
                (resign(&m), Some(4))
            }
            // Signed by the opponent.
            _ => {
                let other = if author == Color::White {
                    &p.black
                } else {
                    &p.white
                };
                (
                    MoveEntry::signed(honest, sign(other, &t.domain, honest).unwrap(), -1),
                    None,
                )
            }
        };
        t.moves[at - 1] = bad;
        let report = t.verify(&NoPins, NOW).unwrap();
        let error = report
            .error
            .clone()
            .unwrap_or_else(|| panic!("game {game}: cheat kind {kind} at ply {at} not found"));
        assert_eq!(error.ply() as usize, at, "game {game} kind {kind}: {error}");
        assert_eq!(report.valid_plies as usize, at - 1);
        match (expect_code, &error) {
            (Some(code), TranscriptError::Transition { error, .. }) => {
                assert_eq!(error.code(), code, "game {game} kind {kind}: {error}");
                assert_eq!(report.settlement.call, "proveIllegalMove");
                let loser_result = if author == Color::White { 2 } else { 1 };
                assert_eq!(report.settlement.ends, Some((loser_result, 13)));
            }
            (None, TranscriptError::Signature { .. }) => {
                assert_ne!(
                    report.settlement.call, "proveIllegalMove",
                    "an unsigned change proves nothing"
                );
            }
            (expected, e) => panic!("game {game} kind {kind}: expected code {expected:?}, got {e}"),
        }
    }
    assert!(
        kinds.iter().all(|k| *k > 20),
        "every kind of cheat was tried: {kinds:?}"
    );
}
