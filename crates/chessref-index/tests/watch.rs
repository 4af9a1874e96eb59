//! The watchtower on anvil: channel games whose signed messages a relay holds (written
//! to the index file as the relay writes them), a cheater's registration on-chain, and
//! one round of the watchtower answering it from its own account.

mod common;

use std::time::{SystemTime, UNIX_EPOCH};

use alloy_primitives::{Address, U256, keccak256};
use alloy_signer_local::PrivateKeySigner;
use chessref_channel::book::frames_of;
use chessref_channel::client::{OffChainGame, Seat};
use chessref_channel::{NoPins, Transcript};
use chessref_core::Move;
use chessref_evm::{Chain, GameSetup, Referee, RpcChain, anvil::Anvil};
use chessref_index::{Indexer, Options, RelayStore, Store, Watchtower};

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

struct Setup {
    anvil: Anvil,
    referee: Referee<RpcChain>,
    db: std::path::PathBuf,
    tower: Address,
}

impl Setup {
    fn new(name: &str) -> Setup {
        let anvil = Anvil::spawn().expect("anvil (the npm-installed node) must be available");
        let referee = Referee::deploy(RpcChain::connect(anvil.url()).unwrap()).unwrap();
        let db = common::temp_db(name);
        let tower = Address::ZERO;
        let mut setup = Setup {
            anvil,
            referee,
            db,
            tower,
        };
        setup.tower = setup.referee.chain().accounts()[5];
        setup
    }

    /// A joined channel game (window 600 s) and both players' seats, black on a session
    /// key.
    fn game(&mut self) -> OffChainGame {
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
    fn relay(&mut self, transcript: &Transcript) {
        let chain = RpcChain::connect_read_only(self.anvil.url()).unwrap();
        let options = Options {
            confirmations: 1,
            ..Options::default()
        };
        let mut indexer = Indexer::new(
            chain,
            Store::open(&self.db).unwrap(),
            self.referee.address(),
            0,
            options,
        )
        .unwrap();
        while !indexer.step().unwrap().caught_up {}
        let mut store = RelayStore::open(&self.db).unwrap();
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

    fn watchtower(&self) -> Watchtower {
        let chain = RpcChain::connect(self.anvil.url()).unwrap();
        Watchtower::new(chain, RelayStore::open(&self.db).unwrap(), self.tower).unwrap()
    }
}

fn play(g: &mut OffChainGame, ucis: &[&str]) {
    for uci in ucis {
        g.play(Move::from_uci(uci).unwrap(), now()).unwrap();
        g.receipt(now()).unwrap();
    }
}

/// `transcript` cut to its first `plies` moves: a pair a cheater registers.
fn registration(transcript: &Transcript, plies: usize) -> chessref_channel::settlement::Settlement {
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

#[test]
fn test_a_stale_registration_is_overtaken_with_the_latest_pair() {
    let mut s = Setup::new("watch-overtake");
    let mut g = s.game();
    play(&mut g, &["e2e4", "e7e5", "g1f3", "b8c6"]);
    let held = g.transcript();
    s.relay(&held);
    // White registers ply 2, hiding plies 3 and 4.
    let white = g.game.white;
    let stale = registration(&held, 2);
    s.referee.send_channel(white, &stale).unwrap();
    let id = g.game.game_id;
    assert_eq!(s.referee.channel_status(id).unwrap().registeredPly, 2);

    let mut tower = s.watchtower();
    let actions = tower.round().unwrap();
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert_eq!(actions[0].call, "register");
    assert!(actions[0].outcome.is_ok(), "{}", actions[0]);
    assert_eq!(s.referee.channel_status(id).unwrap().registeredPly, 4);
    // Nothing more to do: the registration is the latest pair held.
    assert_eq!(tower.round().unwrap(), []);
    let logged = common::count(
        RelayStore::open(&s.db).unwrap().connection(),
        "watch_actions WHERE tx_hash IS NOT NULL",
    );
    assert_eq!(logged, 1);
}

#[test]
fn test_a_contradicting_registration_is_proved_an_equivocation() {
    let mut s = Setup::new("watch-equivocation");
    let mut g = s.game();
    play(&mut g, &["e2e4", "e7e5", "g1f3", "b8c6"]);
    s.relay(&g.transcript());
    // White signs another third move and registers it (fresh, so no receipt needed).
    let mut cheat = g.clone();
    cheat.moves.truncate(3);
    cheat.receipts.retain(|ply, _| *ply < 3);
    cheat.play(Move::from_uci("f1c4").unwrap(), now()).unwrap();
    let white = g.game.white;
    s.referee
        .send_channel(white, &registration(&cheat.transcript(), 3))
        .unwrap();

    let actions = s.watchtower().round().unwrap();
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert_eq!(actions[0].call, "proveEquivocation");
    assert!(actions[0].outcome.is_ok(), "{}", actions[0]);
    let info = s.referee.game(g.game.game_id).unwrap();
    assert_eq!(
        (info.phase, info.result, info.reason),
        (3, 2, 12),
        "black wins"
    );
}

#[test]
fn test_a_decided_registration_nobody_answers_is_finished_after_its_window() {
    let mut s = Setup::new("watch-finish");
    let mut g = s.game();
    play(
        &mut g,
        &["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"],
    );
    let held = g.transcript();
    s.relay(&held);
    let white = g.game.white;
    s.referee
        .send_channel(white, &registration(&held, 7))
        .unwrap();
    let mut tower = s.watchtower();
    assert_eq!(tower.round().unwrap(), [], "nothing before the window ends");
    let chain = s.referee.chain();
    chain
        .raw_request("evm_increaseTime", serde_json::json!([601]))
        .unwrap();
    chain
        .raw_request("evm_mine", serde_json::json!([]))
        .unwrap();
    let actions = tower.round().unwrap();
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert_eq!(actions[0].call, "finishRegistered");
    let info = s.referee.game(g.game.game_id).unwrap();
    assert_eq!(
        (info.phase, info.result, info.reason),
        (3, 1, 1),
        "white mates"
    );
}
