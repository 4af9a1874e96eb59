//! The kept ratings (docs/INDEX.md, "Ratings") equal the ratings recomputed from the
//! final rated games in chain order (`ratings::from_index`, i.e. `rate`), bit for bit,
//! after random sequences of games created, joined and ended (aborts and lying events
//! included), batches made final at random depths, reorganisations rolled back, the file
//! reopened, and the same chain indexed again into a fresh file; and a database indexed
//! before the kept tables existed gets them filled when it gains them. On SQLite and on
//! a throwaway Postgres (fewer seeds there, each also checked against SQLite's ratings
//! for the same seed, bit for bit).

#[path = "common/synthetic.rs"]
mod synthetic;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use alloy_primitives::Address;
use chessref_index::db::{DbTarget, Sql};
use chessref_index::ratings::{self, Kept, RatedGame, Ratings};
use chessref_index::{Source, Store};
use chessref_pgtest::TempPostgres;
use synthetic::{Chain, Rng};

const SOURCE: Source = Source {
    chain_id: 31337,
    referee: Address::repeat_byte(0x30),
    from_block: 1,
};

fn temp_db(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(format!("{name}.sqlite"));
    for suffix in ["", "-wal", "-shm", ".lock"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

/// Where a test's indexes live: SQLite files in a temporary directory, or databases of
/// one throwaway Postgres server.
enum Backend {
    Sqlite(tempfile::TempDir),
    Postgres(TempPostgres),
}

impl Backend {
    fn sqlite() -> Backend {
        Backend::Sqlite(tempfile::tempdir().unwrap())
    }

    fn postgres() -> Backend {
        Backend::Postgres(TempPostgres::start().unwrap())
    }

    /// A fresh database `name` (letters, digits and `_`; each name once).
    fn fresh(&self, name: &str) -> DbTarget {
        match self {
            Backend::Sqlite(dir) => DbTarget::Sqlite(temp_db(dir.path(), name)),
            Backend::Postgres(pg) => pg.create_database(name).unwrap().parse().unwrap(),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Backend::Sqlite(_) => "SQLite",
            Backend::Postgres(_) => "Postgres",
        }
    }
}

fn kept(store: &mut Store) -> Ratings {
    ratings::kept(store.db()).unwrap()
}

/// The kept tables against the recomputation: the same ratings, to the bit, and the same
/// games counted, in chain order.
fn check(store: &mut Store, what: &str) {
    let db = store.db();
    let kept = ratings::kept(db).unwrap();
    let recomputed = ratings::from_index(db).unwrap();
    assert_eq!(kept, recomputed, "{what}: kept ratings");
    let mut rated: Vec<RatedGame> = ratings::rated_games(db).unwrap();
    rated.sort_by_key(|g| (g.ended_at, g.id));
    assert_eq!(
        ratings::counted_games(db).unwrap(),
        rated,
        "{what}: games counted"
    );
}

/// What the test chain's events did, to choose the next ones (the logs are the truth).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Open,
    Running,
    Ended,
}

/// The test chain: the synthetic blocks and, beside each, which games it moved.
struct World {
    chain: Chain,
    moved: Vec<Vec<(u64, Phase)>>,
    players: Vec<(u64, u64)>,
    next_id: u64,
    fork: u64,
}

impl World {
    fn phases(&self) -> BTreeMap<u64, Phase> {
        let mut phases = BTreeMap::new();
        for block in &self.moved {
            for &(id, phase) in block {
                phases.insert(id, phase);
            }
        }
        phases
    }

    /// One block of 0 to 3 events: games created, joined and ended (2 in 10 endings an
    /// abort), and now and then a lying `GameEnded` for a game already ended.
    fn block(&mut self, rng: &mut Rng) {
        let phases = self.phases();
        let of = |phase: Phase| -> Vec<u64> {
            phases
                .iter()
                .filter(|(_, p)| **p == phase)
                .map(|(id, _)| *id)
                .collect()
        };
        let (open, running, ended) = (of(Phase::Open), of(Phase::Running), of(Phase::Ended));
        let (mut logs, mut moved) = (Vec::new(), Vec::new());
        for _ in 0..rng.below(4) {
            let place = self.chain.place(self.fork, logs.len() as u64);
            let roll = rng.below(100);
            if roll < 8 && !ended.is_empty() {
                let id = ended[rng.below(ended.len() as u64) as usize];
                logs.push(synthetic::ended(id, 1, 5, place));
            } else if roll < 40 || (open.is_empty() && running.is_empty()) {
                let id = self.next_id;
                self.next_id += 1;
                let white = rng.below(8);
                let black = (white + 1 + rng.below(7)) % 8;
                self.players.push((white, black));
                logs.push(synthetic::created(
                    id,
                    synthetic::player(white),
                    synthetic::player(black),
                    place,
                ));
                moved.push((id, Phase::Open));
            } else if roll < 70 && !open.is_empty() {
                let id = open[rng.below(open.len() as u64) as usize];
                if moved.iter().any(|(m, _)| *m == id) {
                    continue;
                }
                let (white, black) = self.players[id as usize - 1];
                logs.push(synthetic::joined(
                    id,
                    synthetic::player(white),
                    synthetic::player(black),
                    place,
                ));
                moved.push((id, Phase::Running));
            } else if !running.is_empty() {
                let id = running[rng.below(running.len() as u64) as usize];
                if moved.iter().any(|(m, _)| *m == id) {
                    continue;
                }
                let (result, reason) = synthetic::ending(rng, 20);
                logs.push(synthetic::ended(id, result, reason, place));
                moved.push((id, Phase::Ended));
            }
        }
        self.chain.push(self.fork, logs);
        self.moved.push(moved);
    }

    fn truncate_above(&mut self, number: u64) {
        self.chain.truncate_above(number);
        self.moved.truncate(self.chain.blocks.len());
    }

    fn tip(&self) -> u64 {
        self.chain.next_number() - 1
    }
}

/// Indexes `chain`'s blocks `1..=to` into a fresh database in batches of random sizes,
/// with `final_block` final.
fn index_again(
    chain: &Chain,
    target: &DbTarget,
    to: u64,
    final_block: u64,
    rng: &mut Rng,
) -> Store {
    let mut store = Store::open_target(target).unwrap();
    store.bind(SOURCE).unwrap();
    let mut from = 1;
    while from <= to {
        let end = (from + rng.below(6)).min(to);
        store.commit(&chain.batch(from, end, final_block)).unwrap();
        from = end + 1;
    }
    store
}

/// What one seed's run saw: how often each path of `keep` was taken, and the ratings kept
/// at its end.
struct Run {
    seen: BTreeMap<&'static str, usize>,
    kept: Ratings,
}

/// 120 random rounds of `seed` on `backend`: the chain grows, the indexer commits,
/// reorganisations are rolled back, the indexer restarts, the chain is indexed again;
/// after each round the kept ratings equal the recomputed ones.
fn run(backend: &Backend, seed: u64) -> Run {
    let mut seen = BTreeMap::<&str, usize>::new();
    let mut rng = Rng(seed);
    let target = backend.fresh(&format!("live_{seed}"));
    let mut store = Store::open_target(&target).unwrap();
    store.bind(SOURCE).unwrap();
    let mut world = World {
        chain: Chain::new(1),
        moved: Vec::new(),
        players: Vec::new(),
        next_id: 1,
        fork: 0,
    };
    let confirmations = rng.below(6);
    let mut final_block = 0;
    for round in 0..120 {
        let what = format!("{}, seed {seed}, round {round}", backend.name());
        let next = store.cursor().unwrap().next_block;
        match rng.below(100) {
            // The chain grows.
            0..45 => {
                for _ in 0..1 + rng.below(4) {
                    world.block(&mut rng);
                }
            }
            // The indexer commits the next blocks.
            45..80 if next <= world.tip() => {
                let to = next + rng.below(world.tip() - next + 1);
                final_block = final_block.max(world.tip().saturating_sub(confirmations));
                let kept = store
                    .commit(&world.chain.batch(next, to, final_block))
                    .unwrap()
                    .ratings;
                *seen
                    .entry(match kept {
                        Kept::Unchanged => "unchanged",
                        Kept::Applied(_) => "applied",
                        Kept::RebuiltChanged(_) => "rebuilt, a counted game changed",
                        Kept::RebuiltEarlier(_) => "rebuilt, an earlier game counts",
                    })
                    .or_default() += 1;
            }
            // A reorganisation above a block the index holds: the indexer rolls back.
            80..90 => {
                let recent = store.recent_blocks().unwrap();
                if recent.is_empty() {
                    continue;
                }
                let ancestor = recent[rng.below(recent.len() as u64) as usize];
                world.truncate_above(ancestor.number);
                world.fork += 1;
                for _ in 0..rng.below(4) {
                    world.block(&mut rng);
                }
                match store.rollback(ancestor).unwrap().ratings {
                    Kept::RebuiltEarlier(_) => {
                        *seen.entry("rebuilt, an earlier game counts").or_default() += 1;
                    }
                    Kept::RebuiltChanged(_) => {
                        *seen.entry("rebuilt, a counted game changed").or_default() += 1;
                    }
                    _ => {}
                }
            }
            // The indexer restarts.
            90..95 => {
                drop(store);
                store = Store::open_target(&target).unwrap();
            }
            // The same chain, indexed again from scratch, keeps the same ratings.
            _ => {
                let cursor = store.cursor().unwrap();
                let mut again = index_again(
                    &world.chain,
                    &backend.fresh(&format!("again_{seed}_{round}")),
                    cursor.next_block - 1,
                    cursor.final_block,
                    &mut rng,
                );
                check(&mut again, &format!("{what}, indexed again"));
                assert_eq!(kept(&mut again), kept(&mut store), "{what}: indexed again");
            }
        }
        check(&mut store, &what);
    }
    let kept = kept(&mut store);
    assert!(!kept.is_empty(), "seed {seed}: some games were rated");
    Run { seen, kept }
}

/// Every path of `keep` was taken: games applied in order, and tables rebuilt after a
/// counted game stopped counting (a lying `GameEnded` made it divergent) or one started
/// counting before the last counted (a rollback forgot the lie).
fn assert_every_path(seen: &BTreeMap<&str, usize>, what: &str) {
    eprintln!("{what}: {seen:?}");
    for path in [
        "unchanged",
        "applied",
        "rebuilt, a counted game changed",
        "rebuilt, an earlier game counts",
    ] {
        assert!(
            seen.contains_key(path),
            "{what}: {path} never happened: {seen:?}"
        );
    }
}

#[test]
fn test_kept_ratings_equal_the_recomputed_ones_through_reorgs_lies_reopening_and_reindexing() {
    let backend = Backend::sqlite();
    let mut seen = BTreeMap::<&str, usize>::new();
    for seed in 0..12u64 {
        for (path, n) in run(&backend, seed).seen {
            *seen.entry(path).or_default() += n;
        }
    }
    assert_every_path(&seen, "SQLite, 12 seeds");
}

/// The same on Postgres, for fewer seeds (each round is a few round trips to the server):
/// each seed keeps, bit for bit, the ratings SQLite keeps for it.
#[test]
fn test_kept_ratings_on_postgres_equal_the_recomputed_ones_and_sqlites() {
    let (lite, pg) = (Backend::sqlite(), Backend::postgres());
    let mut seen = BTreeMap::<&str, usize>::new();
    for seed in PG_SEEDS {
        let post = run(&pg, seed);
        assert_eq!(
            post.kept,
            run(&lite, seed).kept,
            "seed {seed}: Postgres kept SQLite's"
        );
        for (path, n) in post.seen {
            *seen.entry(path).or_default() += n;
        }
    }
    assert_every_path(&seen, "Postgres");
}

/// The seeds run on Postgres: between them they take every path of `keep` (3 and 8 each
/// rebuild for a game that starts counting before the last one counted).
const PG_SEEDS: [u64; 3] = [3, 8, 9];

/// A database of migration 3 (no kept tables) indexed with finished games gains the
/// tables, filled in the migration, when opened.
fn database_indexed_before_the_kept_ratings_gets_them_filled(backend: &Backend) {
    let target = backend.fresh("old");
    let chain = synthetic::finished_games(300, 20, 7, 5);
    let mut store = index_again(&chain, &target, chain.next_number() - 1, 40, &mut Rng(1));
    check(&mut store, "indexed");
    let expected = kept(&mut store);
    assert!(
        expected.len() == 20,
        "every player rated: {}",
        expected.len()
    );
    // As a database of migration 3 had it: no kept tables, nor migration 5's.
    let version = match backend {
        Backend::Sqlite(_) => "PRAGMA user_version = 3",
        Backend::Postgres(_) => "UPDATE chessref_schema SET version = 3",
    };
    store
        .db()
        .batch(
            &format!(
                "DROP TABLE ratings; DROP TABLE rated_games; DROP TABLE tournament_matches;
                 DROP TABLE tournament_entries; DROP TABLE tournaments;
                 DROP INDEX logs_by_tournament; ALTER TABLE logs DROP COLUMN tournament_id;
                 ALTER TABLE logs DROP COLUMN emitter; {version};"
            ),
            "going back to migration 3",
        )
        .unwrap();
    drop(store);
    let mut store = Store::open_target(&target).unwrap();
    check(&mut store, &format!("{}: migrated", backend.name()));
    assert_eq!(kept(&mut store), expected, "{}", backend.name());
}

#[test]
fn test_a_database_indexed_before_the_kept_ratings_gets_them_filled() {
    database_indexed_before_the_kept_ratings_gets_them_filled(&Backend::sqlite());
}

#[test]
fn test_a_postgres_database_indexed_before_the_kept_ratings_gets_them_filled() {
    database_indexed_before_the_kept_ratings_gets_them_filled(&Backend::postgres());
}

/// Pages of the leaderboard walk every rated player in order: rating, then address.
fn leaderboard_pages_walk_the_kept_ratings_in_order(backend: &Backend) {
    let chain = synthetic::finished_games(400, 60, 9, 11);
    let target = backend.fresh("board");
    let mut store = index_again(&chain, &target, chain.next_number() - 1, 1_000, &mut Rng(2));
    let mut expected: Vec<(String, ratings::Rating)> = kept(&mut store)
        .iter()
        .map(|(a, r)| (format!("{a:#x}"), *r))
        .collect();
    expected.sort_by(|x, y| {
        y.1.rating
            .total_cmp(&x.1.rating)
            .then_with(|| x.0.cmp(&y.0))
    });
    assert_eq!(expected.len(), 60);
    let db = store.db();
    let mut walked = Vec::new();
    for offset in (0..70).step_by(7) {
        let page = ratings::leaderboard(db, 7, offset).unwrap();
        assert_eq!(page.total, 60);
        for ranked in page.players {
            assert_eq!(ranked.rank, walked.len() as u64 + 1);
            walked.push(ranked.player);
        }
    }
    let views: Vec<_> = expected
        .iter()
        .map(|(a, r)| r.view(a.parse().unwrap()))
        .collect();
    assert_eq!(walked, views, "{}", backend.name());
    // Past the last player: an empty page, the total still right.
    let past = ratings::leaderboard(db, 5, 60).unwrap();
    assert!(past.players.is_empty() && past.total == 60);
}

#[test]
fn test_the_leaderboard_pages_walk_the_kept_ratings_in_order() {
    leaderboard_pages_walk_the_kept_ratings_in_order(&Backend::sqlite());
}

#[test]
fn test_the_postgres_leaderboard_pages_walk_the_kept_ratings_in_order() {
    leaderboard_pages_walk_the_kept_ratings_in_order(&Backend::postgres());
}
