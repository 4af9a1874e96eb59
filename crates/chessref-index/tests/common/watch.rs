//! What the watchtower's tests and benchmark share: anvil with the referee, joined
//! channel games, both players' seats, the relay's messages written to the index file
//! as the relay writes them.
#![allow(dead_code)]

use std::time::{SystemTime, UNIX_EPOCH};

use alloy_primitives::{Address, U256, keccak256};
use alloy_signer_local::PrivateKeySigner;
use chessref_channel::book::frames_of;
use chessref_channel::client::{OffChainGame, Seat};
use chessref_channel::{NoPins, Transcript};
use chessref_core::Move;
use chessref_evm::{Chain, GameSetup, Referee, RpcChain, anvil::Anvil};
use chessref_index::db::DbTarget;
use chessref_index::{Indexer, Options, RelayStore, Store, Watchtower};

pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

pub struct Setup {
    pub anvil: Anvil,
    pub referee: Referee<RpcChain>,
    /// The index: a SQLite file ([`Setup::new`]) or a Postgres database
    /// ([`Setup::postgres`]).
    pub db: DbTarget,
    pub tower: Address,
    /// The Postgres server, kept as long as the setup.
    pub pg: Option<chessref_pgtest::TempPostgres>,
}

impl Setup {
    /// On a fresh SQLite index file.
    pub fn new(name: &str) -> Setup {
        Setup::on(DbTarget::Sqlite(super::common::temp_db(name)), None)
    }

    /// On a fresh database of a throwaway Postgres server.
    pub fn postgres() -> Setup {
        let pg = chessref_pgtest::TempPostgres::start().unwrap();
        Setup::on(pg.url().parse().unwrap(), Some(pg))
    }

    fn on(db: DbTarget, pg: Option<chessref_pgtest::TempPostgres>) -> Setup {
        let anvil = Anvil::spawn().expect("anvil (the npm-installed node) must be available");
        let referee = Referee::deploy(RpcChain::connect(anvil.url()).unwrap()).unwrap();
        let tower = Address::ZERO;
        let mut setup = Setup {
            anvil,
            referee,
            db,
            tower,
            pg,
        };
        setup.tower = setup.referee.chain().accounts()[5];
        setup
    }

    /// A joined channel game (window 600 s) and both players' seats, black on a session
    /// key.
    pub fn game(&mut self) -> OffChainGame {
        let (white, black) = {
            let accounts = self.referee.chain().accounts();
            (accounts[1], accounts[2])
        };
        let stake = U256::from(10u64.pow(15));
        let created = self
            .referee
            .create_channel_game(white, &GameSetup::eth(black, stake), 600)
            .unwrap();
        self.referee.join_game(black, created.id, stake).unwrap();
        let domain = self.referee.channel_domain().unwrap();
        let terms = self.referee.channel_game(created.id, None).unwrap();
        let session =
            PrivateKeySigner::from_bytes(&keccak256(format!("session {}", created.id))).unwrap();
        let expires = terms.key_expiry(now(), 200);
        let black = Seat::with_session(
            chessref_evm::anvil::default_signer(black).unwrap(),
            session,
            &domain,
            &terms,
            expires,
        )
        .unwrap();
        let white = Seat::wallet(chessref_evm::anvil::default_signer(white).unwrap());
        OffChainGame::new(domain, terms, white, black).unwrap()
    }

    /// Indexes up to the head, then stores `transcript`'s frames as the relay does.
    pub fn relay(&mut self, transcript: &Transcript) {
        let chain = RpcChain::connect_read_only(self.anvil.url()).unwrap();
        let options = Options {
            confirmations: 1,
            ..Options::default()
        };
        let mut indexer = Indexer::new(
            chain,
            Store::open_target(&self.db).unwrap(),
            self.referee.address(),
            0,
            options,
        )
        .unwrap();
        while !indexer.step().unwrap().caught_up {}
        let mut store = RelayStore::open_target(&self.db).unwrap();
        let id = transcript.game.game_id;
        let held = store.messages(id, 0).unwrap().len() as u64;
        for (i, frame) in frames_of(transcript).iter().enumerate().skip(held as usize) {
            store
                .append(
                    id,
                    i as u64 + 1,
                    frame.kind(),
                    frame.ply(),
                    now(),
                    &serde_json::to_string(frame).unwrap(),
                )
                .unwrap();
        }
    }

    pub fn watchtower(&self) -> Watchtower {
        let chain = RpcChain::connect(self.anvil.url()).unwrap();
        Watchtower::new(
            chain,
            RelayStore::open_target(&self.db).unwrap(),
            self.tower,
        )
        .unwrap()
    }
}

pub fn play(g: &mut OffChainGame, ucis: &[&str]) {
    for uci in ucis {
        g.play(Move::from_uci(uci).unwrap(), now()).unwrap();
        g.receipt(now()).unwrap();
    }
}

/// `transcript` cut to its first `plies` moves: a pair a cheater registers.
pub fn registration(
    transcript: &Transcript,
    plies: usize,
) -> chessref_channel::settlement::Settlement {
    let mut old = transcript.clone();
    old.moves.truncate(plies);
    let report = old.verify(&NoPins, now()).unwrap();
    assert_eq!(
        report.settlement.call, "register",
        "{}",
        report.settlement.why
    );
    report.settlement
}
