//! The tournament's rows through the store's real write path (`Store::commit`,
//! `Store::rollback`) on both backends: an event played to its end, then rolled back
//! across its results and its draw, and drawn again on another fork.

use alloy_primitives::aliases::{U40, U96};
use alloy_primitives::{Address, B256, U256, keccak256};
use alloy_sol_types::SolEvent;
use chessref_core::tournament::{Bracket, BracketSize, Split};
use chessref_evm::LogPlace;
use chessref_evm::bindings::ChessTournament as T;
use chessref_evm::bindings::IChessTournamentTypes::EventTerms;

use super::view::{self, TournamentFilter, TournamentStatus, TournamentView};
use crate::raw::{BlockRef, RawLog};
use crate::store::tests::{SOURCE, count, on_both};
use crate::store::{Batch, Store};

const FEE: u64 = 10_000_000_000_000_000;
const SPLIT: [u16; 3] = [6_000, 2_500, 750];
const TOURNAMENT: &str = "0x0000000000000000000000000000000000000007";

/// Block `n`'s hash on `fork`.
fn hash(n: u64, fork: u64) -> B256 {
    keccak256([n.to_be_bytes(), fork.to_be_bytes()].concat())
}

fn player(n: u64) -> Address {
    Address::from_word(keccak256(n.to_be_bytes()))
}

/// A chain being written: each block's logs, on a fork.
struct Chain {
    fork: u64,
    /// The hash of the block below the next batch, when the store holds another fork's.
    below: Option<B256>,
    /// Per block from 1: its tournament logs.
    blocks: Vec<Vec<RawLog>>,
}

impl Chain {
    fn new() -> Chain {
        Chain {
            fork: 0,
            below: None,
            blocks: Vec::new(),
        }
    }

    /// Appends block `blocks.len() + 1` with `events`' logs; its number.
    fn block(&mut self, events: Vec<alloy_primitives::LogData>) -> u64 {
        let number = self.blocks.len() as u64 + 1;
        let logs = events
            .into_iter()
            .enumerate()
            .map(|(i, log)| RawLog {
                place: LogPlace {
                    block_number: number,
                    log_index: i as u64,
                    block_hash: hash(number, self.fork),
                    tx_hash: hash(number * 100 + i as u64, self.fork),
                },
                topics: log.topics().to_vec(),
                data: log.data,
            })
            .collect();
        self.blocks.push(logs);
        number
    }

    /// Blocks `from..=to` as the indexer commits them, all of them kept for the reorg
    /// check (nothing final).
    fn batch(&self, from: u64, to: u64) -> Batch {
        let parent = |n: u64| {
            if n > from {
                hash(n - 1, self.fork)
            } else {
                // The block below the range is the one the store holds.
                self.below
                    .unwrap_or_else(|| hash(n.saturating_sub(1), self.fork))
            }
        };
        Batch {
            from,
            to,
            to_hash: hash(to, self.fork),
            logs: Vec::new(),
            tournament_logs: (from..=to)
                .flat_map(|n| self.blocks[(n - 1) as usize].clone())
                .collect(),
            blocks: (from..=to)
                .map(|n| BlockRef {
                    number: n,
                    hash: hash(n, self.fork),
                    parent_hash: parent(n),
                    timestamp: 1_000 + n,
                })
                .collect(),
            head: to,
            final_block: 1,
        }
    }
}

fn terms(size: u8, deadline: u64) -> EventTerms {
    EventTerms {
        token: Address::ZERO,
        fee: U96::from(FEE),
        size,
        initialTime: 180,
        increment: 2,
        firstMoveWindow: 600,
        responseWindow: 0,
        deadline: U40::from(deadline),
        feeBps: 500,
        split: SPLIT.to_vec(),
        abandonAfter: 3_600,
    }
}

fn created(id: u64, organiser: Address, terms: EventTerms) -> alloy_primitives::LogData {
    T::EventCreated {
        eventId: U256::from(id),
        organiser,
        terms,
    }
    .encode_log_data()
}

fn entered(id: u64, n: u8) -> alloy_primitives::LogData {
    T::Entered {
        eventId: U256::from(id),
        player: player(n.into()),
        index: n,
    }
    .encode_log_data()
}

fn drawn(id: u64, seed: u64) -> alloy_primitives::LogData {
    T::Drawn {
        eventId: U256::from(id),
        seed,
    }
    .encode_log_data()
}

fn started(id: u64, m: u8, game: u64, white: Address, black: Address) -> alloy_primitives::LogData {
    T::MatchStarted {
        eventId: U256::from(id),
        matchIndex: U256::from(m),
        gameId: U256::from(game),
        white,
        black,
    }
    .encode_log_data()
}

fn decided(id: u64, m: u8, winner: Address, loser: Address, how: u8) -> alloy_primitives::LogData {
    T::MatchDecided {
        eventId: U256::from(id),
        matchIndex: U256::from(m),
        winner,
        loser,
        how,
    }
    .encode_log_data()
}

fn event_view(store: &mut Store, id: u64) -> Option<TournamentView> {
    view::event(store.db(), TOURNAMENT, U256::from(id), 0).unwrap()
}

/// The ids of the events `filter` lists, and its `next`.
fn listed(
    store: &mut Store,
    status: Option<TournamentStatus>,
    player: Option<Address>,
    limit: u32,
    before: Option<u64>,
) -> (Vec<String>, Option<String>) {
    let filter = TournamentFilter {
        status,
        player,
        limit,
        before: before.map(U256::from),
    };
    let list = view::list(store.db(), TOURNAMENT, &filter).unwrap();
    (
        list.tournaments.into_iter().map(|t| t.id).collect(),
        list.next,
    )
}

/// The stored block `number`.
fn stored(store: &mut Store, number: u64) -> BlockRef {
    store
        .recent_blocks()
        .unwrap()
        .into_iter()
        .find(|b| b.number == number)
        .unwrap()
}

/// Round 0 match `m`'s (white, black) for `seed`, by the mirror.
fn pairing(seed: u64, m: u8) -> (Address, Address) {
    let size = BracketSize::new(4).unwrap();
    let bracket = Bracket { size, seed };
    let m = size.match_index(m).unwrap();
    let (lo, hi) = bracket.first_round(m).unwrap();
    let (white, black) = bracket.colours(m, lo, hi);
    (player(white.into()), player(black.into()))
}

fn players_of(view: &TournamentView, m: usize) -> (Option<String>, Option<String>) {
    let matches: Vec<_> = view.rounds.iter().flatten().collect();
    (matches[m].white.clone(), matches[m].black.clone())
}

fn some(a: Address) -> Option<String> {
    Some(a.to_string())
}

/// The event played to its end.
const PLAYED: u64 = 2;
/// An event that did not fill by its deadline (block 3's time).
const REFUNDED: u64 = 1;

#[test]
fn test_an_event_played_then_rolled_back_across_its_results_and_its_draw() {
    on_both("tournament", |mut store| {
        store
            .bind(crate::store::Source {
                from_block: 1,
                ..SOURCE
            })
            .unwrap();
        let organiser = player(100);
        let mut chain = Chain::new();
        // 1: an 8-player event whose deadline passes at block 3, one entry.
        chain.block(vec![
            created(REFUNDED, player(101), terms(8, 1_002)),
            entered(REFUNDED, 0),
        ]);
        // 2: the event played; 3: its four entries; 4: drawn.
        chain.block(vec![created(PLAYED, organiser, terms(4, 5_000))]);
        chain.block((0..4).map(|n| entered(PLAYED, n)).collect());
        chain.block(vec![drawn(PLAYED, 77)]);
        let (w0, b0) = pairing(77, 0);
        let (w1, b1) = pairing(77, 1);
        // 5: both semi-finals start; 6: one won on the board, the other's lot armed;
        // 7: the lot decides it for black; 8: the final starts; 9: white wins it.
        chain.block(vec![
            started(PLAYED, 0, 11, w0, b0),
            started(PLAYED, 1, 12, w1, b1),
        ]);
        chain.block(vec![
            decided(PLAYED, 0, w0, b0, 1),
            T::LotArmed {
                eventId: U256::from(PLAYED),
                matchIndex: U256::from(1),
                lotBlock: U256::from(7),
            }
            .encode_log_data(),
        ]);
        chain.block(vec![decided(PLAYED, 1, b1, w1, 2)]);
        let bracket = Bracket {
            size: BracketSize::new(4).unwrap(),
            seed: 77,
        };
        let (fw, fb) = bracket.colours(bracket.size.final_match(), w0, b1);
        chain.block(vec![started(PLAYED, 2, 13, fw, fb)]);
        let prizes = Split::new(bracket.size, &SPLIT)
            .unwrap()
            .prizes(u128::from(FEE), 500)
            .unwrap();
        chain.block(vec![
            decided(PLAYED, 2, fw, fb, 1),
            T::EventFinished {
                eventId: U256::from(PLAYED),
                winner: fw,
            }
            .encode_log_data(),
            T::PrizeCredited {
                eventId: U256::from(PLAYED),
                account: fw,
                amount: U256::from(prizes.of_tier(0)),
            }
            .encode_log_data(),
        ]);

        // Blocks 1..=7: the semi-finals decided, the final waiting.
        let committed = store.commit(&chain.batch(1, 7)).unwrap();
        assert_eq!(committed.tournaments.len(), 2);
        let running = event_view(&mut store, PLAYED).unwrap();
        assert_eq!(running.summary.status, TournamentStatus::Running);
        assert_eq!(running.seed.as_deref(), Some("77"));
        assert_eq!(running.summary.pool, (4 * u128::from(FEE)).to_string());
        assert_eq!(running.entrants.len(), 4);
        assert_eq!(players_of(&running, 0), (some(w0), some(b0)));
        // The final is not started: its players and colours are the mirror's.
        assert_eq!(players_of(&running, 2), (some(fw), some(fb)));
        let matches: Vec<_> = running.rounds.iter().flatten().collect();
        assert_eq!(
            (matches[1].status.as_str(), matches[1].how.as_deref()),
            ("decided", Some("lot"))
        );
        assert_eq!(matches[1].winner, some(b1));
        assert_eq!(matches[2].status, "waiting");
        assert_eq!(running.standings.len(), 2, "{:?}", running.standings);
        assert!(
            running
                .standings
                .iter()
                .all(|s| s.tier == 2 && s.prize == prizes.of_tier(2).to_string() && !s.credited)
        );
        // The lists: newest first, by status (past its deadline, not full: refunding),
        // by player (entered or organises), a page at a time.
        let all = |ids: &[u64]| ids.iter().map(u64::to_string).collect::<Vec<_>>();
        assert_eq!(
            listed(&mut store, None, None, 50, None),
            (all(&[2, 1]), None)
        );
        let by_status = |store: &mut Store, status| listed(store, Some(status), None, 50, None).0;
        assert_eq!(
            by_status(&mut store, TournamentStatus::Refunding),
            all(&[1])
        );
        assert_eq!(by_status(&mut store, TournamentStatus::Running), all(&[2]));
        assert!(by_status(&mut store, TournamentStatus::Open).is_empty());
        let by_player = |store: &mut Store, n| listed(store, None, Some(player(n)), 50, None).0;
        assert_eq!(by_player(&mut store, 100), all(&[2]));
        assert_eq!(by_player(&mut store, 101), all(&[1]));
        assert_eq!(by_player(&mut store, 0), all(&[2, 1]));
        assert_eq!(by_player(&mut store, 3), all(&[2]));
        assert!(by_player(&mut store, 7).is_empty());
        assert_eq!(
            listed(&mut store, None, None, 1, None),
            (all(&[2]), Some("2".into()))
        );
        assert_eq!(
            listed(&mut store, None, None, 1, Some(2)),
            (all(&[1]), None)
        );

        store.commit(&chain.batch(8, 9)).unwrap();
        let finished = event_view(&mut store, PLAYED).unwrap();
        assert_eq!(finished.summary.status, TournamentStatus::Finished);
        assert_eq!(finished.summary.winner, some(fw));
        assert_eq!(finished.paid, prizes.of_tier(0).to_string());
        assert_eq!(finished.standings[0].player, fw.to_string());
        assert_eq!(finished.standings[0].tier, 0);
        assert!(finished.standings[0].credited);
        assert_eq!(finished.standings[1].tier, 1);
        assert_eq!(finished.standings[1].prize, prizes.of_tier(1).to_string());
        assert_eq!(finished.prizes.len(), 3);
        assert_eq!(finished.prizes[2].players, 2);

        // A reorg back to block 5 undoes every result, the lot and the credit.
        let ancestor = stored(&mut store, 5);
        let rolled = store.rollback(ancestor).unwrap();
        assert_eq!(rolled.tournaments.len(), 1);
        let back = event_view(&mut store, PLAYED).unwrap();
        assert_eq!(back.summary.status, TournamentStatus::Running);
        assert_eq!(back.summary.winner, None);
        assert_eq!(back.paid, "0");
        assert!(back.standings.is_empty());
        let statuses: Vec<_> = back
            .rounds
            .iter()
            .flatten()
            .map(|m| m.status.clone())
            .collect();
        assert_eq!(statuses, ["running", "running", "waiting"]);
        // The final's players are unknown again.
        assert_eq!(players_of(&back, 2), (None, None));

        // Back to block 3, across the draw: full, not drawn, nobody paired.
        let ancestor = stored(&mut store, 3);
        store.rollback(ancestor).unwrap();
        let undrawn = event_view(&mut store, PLAYED).unwrap();
        assert_eq!(undrawn.summary.status, TournamentStatus::Drawing);
        assert_eq!(undrawn.seed, None);
        assert!(
            undrawn
                .rounds
                .iter()
                .flatten()
                .all(|m| m.white.is_none() && m.status == "waiting" && m.game_id.is_none())
        );

        // Another fork draws another seed: the pairings are that seed's, by the mirror.
        chain.blocks.truncate(3);
        chain.fork = 1;
        chain.below = Some(hash(3, 0));
        chain.block(vec![drawn(PLAYED, 78)]);
        store.commit(&chain.batch(4, 4)).unwrap();
        let redrawn = event_view(&mut store, PLAYED).unwrap();
        assert_eq!(redrawn.seed.as_deref(), Some("78"));
        let (w, b) = pairing(78, 1);
        assert_eq!(players_of(&redrawn, 1), (some(w), some(b)));

        // Before its creation: none of its rows is left; the other event's are.
        let first = stored(&mut store, 1);
        store.rollback(first).unwrap();
        assert!(event_view(&mut store, PLAYED).is_none());
        assert_eq!(count(&mut store, "tournaments"), 1);
        assert_eq!(count(&mut store, "tournament_entries"), 1);
        assert_eq!(count(&mut store, "tournament_matches"), 7);
        // The chain's time is block 1's again, before that event's deadline: open.
        assert_eq!(
            event_view(&mut store, REFUNDED).unwrap().summary.status,
            TournamentStatus::Open
        );
    });
}
