//! docs/CHANNEL.md: the ChessChannel contract and the Rust verifier (chessref-channel)
//! agree on every type hash, digest and transition verdict, over the shared fixture
//! and seeded random transcripts with cheating; and a channel game runs end to end
//! on revm (create, join, off-chain play, settle or register and play on).

use alloy_primitives::{Address, B256, Bytes, U256, aliases::U24};
use chessref_channel::client::{OffChainGame, Seat};
use chessref_channel::messages::Message;
use chessref_channel::{ChannelGame, Move, check_successor, successor};
use chessref_core::{State, Status};
use chessref_evm::{Chain, GameSetup, Referee, RevmChain};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/channel-examples.json"
);

fn fixture() -> Value {
    serde_json::from_str(&std::fs::read_to_string(FIXTURE).expect("fixture")).expect("JSON")
}

fn b256(v: &Value) -> B256 {
    v.as_str().expect("hex").parse().expect("32 bytes")
}

fn message(v: &Value) -> Move {
    Move {
        gameId: U256::from(v["gameId"].as_u64().expect("gameId")),
        ply: v["ply"].as_u64().expect("ply") as u32,
        mv: U24::from(v["mv"].as_u64().expect("mv") as u32),
        state: v["state"]
            .as_str()
            .expect("state")
            .parse::<Bytes>()
            .expect("hex"),
        history: b256(&v["history"]),
        whiteTime: v["whiteTime"].as_u64().expect("whiteTime") as u32,
        blackTime: v["blackTime"].as_u64().expect("blackTime") as u32,
        timestamp: v["timestamp"].as_u64().expect("timestamp"),
        previous: b256(&v["previous"]),
    }
}

#[test]
fn contract_and_verifier_agree_on_the_fixture() {
    let f = fixture();
    let mut referee = Referee::deploy(RevmChain::new()).expect("deploy");
    let domain = referee.channel_domain().expect("domain");
    let moves: Vec<Value> = std::iter::once(f["start"].clone())
        .chain(f["moves"].as_array().expect("moves").iter().cloned())
        .chain(
            ["a", "b"]
                .iter()
                .map(|k| f["negative"]["equivocation"][*k].clone()),
        )
        .collect();
    for v in &moves {
        let m = message(v);
        let (hash, digest) = referee.contract_hashes(&m).expect("hashMove");
        assert_eq!(hash, b256(&v["hash"]), "hashStruct of ply {}", m.ply);
        assert_eq!(digest, m.digest(&domain), "digest of ply {}", m.ply);
    }
    // Every other message type: the contract's hashing views agree with the fixture and
    // with the Rust digest.
    let n = |v: &Value, k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{k}"));
    let mut checked = 0;
    for d in f["delegations"].as_array().expect("delegations") {
        let m = chessref_channel::Delegation {
            gameId: U256::from(n(d, "gameId")),
            sessionKey: d["sessionKey"].as_str().unwrap().parse().unwrap(),
            firstPly: n(d, "firstPly") as u32,
            lastPly: n(d, "lastPly") as u32,
            expires: n(d, "expires"),
        };
        checked += agree(&mut referee, &domain, &m, d);
    }
    let r = &f["resignation"];
    let m = chessref_channel::Resignation {
        gameId: U256::from(n(r, "gameId")),
        ply: n(r, "ply") as u32,
        position: b256(&r["position"]),
    };
    checked += agree(&mut referee, &domain, &m, r);
    let r = &f["result"];
    let m = chessref_channel::ResultMessage {
        gameId: U256::from(n(r, "gameId")),
        ply: n(r, "ply") as u32,
        position: b256(&r["position"]),
        result: n(r, "result") as u8,
    };
    checked += agree(&mut referee, &domain, &m, r);
    let o = &f["drawOffer"];
    let m = chessref_channel::DrawOffer {
        gameId: U256::from(n(o, "gameId")),
        ply: n(o, "ply") as u32,
        position: b256(&o["position"]),
    };
    checked += agree(&mut referee, &domain, &m, o);
    for mv in f["moves"].as_array().unwrap() {
        let r = &mv["receipt"];
        let m = chessref_channel::Receipt {
            gameId: U256::from(n(r, "gameId")),
            ply: n(r, "ply") as u32,
            position: b256(&r["position"]),
            seenAt: n(r, "seenAt"),
        };
        checked += agree(&mut referee, &domain, &m, r);
    }
    assert_eq!(checked, f["delegations"].as_array().unwrap().len() + 3 + 4);

    let increment = f["game"]["increment"].as_u64().expect("increment") as u32;
    let id = U256::from(f["game"]["gameId"].as_u64().expect("id"));
    for t in f["negative"]["transitions"]
        .as_array()
        .expect("transitions")
    {
        let (q, m) = (message(&t["previous"]), message(&t["move"]));
        let on_chain = referee
            .contract_transition(id, increment, &q, &m)
            .expect("transitionCode");
        let code = (
            t["code"].as_u64().unwrap() as u8,
            t["ruleCode"].as_u64().unwrap() as u8,
        );
        assert_eq!(on_chain, code, "{}", t["name"]);
    }
    let plies: Vec<Move> = f["moves"].as_array().unwrap().iter().map(message).collect();
    let mut previous = message(&f["start"]);
    for m in &plies {
        assert_eq!(
            referee
                .contract_transition(id, increment, &previous, m)
                .unwrap(),
            (0, 0)
        );
        previous = m.clone();
    }
}

/// `message`'s `hashStruct` by the contract's view equals the fixture's `hash` in `v`, and
/// its digest (this chain's channel, not the fixture's) the Rust digest; 1 (one message
/// checked).
fn agree<M: Message + chessref_evm::channel::ContractHash>(
    referee: &mut Referee<RevmChain>,
    domain: &chessref_channel::ChannelDomain,
    message: &M,
    v: &Value,
) -> usize {
    let (hash, digest) = referee.contract_hashes(message).expect("hashing view");
    assert_eq!(hash, b256(&v["hash"]), "hashStruct of {v}");
    assert_eq!(digest, message.digest(domain), "Rust digest of {v}");
    1
}

fn random_key(rng: &mut ChaCha8Rng) -> alloy_signer_local::PrivateKeySigner {
    loop {
        if let Ok(k) =
            alloy_signer_local::PrivateKeySigner::from_bytes(&B256::from(rng.random::<[u8; 32]>()))
        {
            return k;
        }
    }
}

#[test]
fn contract_and_verifier_agree_on_random_transitions_with_cheating() {
    let mut referee = Referee::deploy(RevmChain::new()).expect("deploy");
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed);
    let (mut honest, mut cheats) = (0, 0);
    for game in 1..=12u64 {
        let game_terms = ChannelGame {
            game_id: U256::from(game),
            white: Address::repeat_byte(1),
            black: Address::repeat_byte(2),
            initial_time: 600,
            increment: 5,
            response_window: 300,
            start_state: None,
        };
        let mut previous = game_terms.start_move().unwrap();
        let mut now = 1_767_225_600u64;
        for _ in 0..60 {
            let state = State::from_bytes(&previous.state).unwrap();
            if state.status() != Status::Ongoing {
                break;
            }
            let legal = state.legal_moves();
            now += rng.random_range(0..9);
            let next =
                successor(&previous, legal[rng.random_range(0..legal.len())], now, 5).unwrap();
            // One cheat per ply, of a random kind, judged by both.
            let bad = match rng.random_range(0..7) {
                6 => Move {
                    timestamp: previous.timestamp.wrapping_sub(rng.random_range(1..20)),
                    ..next.clone()
                },
                0 => Move {
                    mv: U24::from(rng.random_range(0..0x78_78_06u32)),
                    ..next.clone()
                },
                1 => Move {
                    whiteTime: next.whiteTime.wrapping_add(rng.random_range(1..20)),
                    ..next.clone()
                },
                2 => Move {
                    blackTime: next.blackTime.wrapping_sub(rng.random_range(1..20)),
                    ..next.clone()
                },
                3 => Move {
                    history: B256::repeat_byte(3),
                    ..next.clone()
                },
                4 => Move {
                    ply: next.ply + rng.random_range(1..3),
                    ..next.clone()
                },
                _ => {
                    let mut s = next.state.to_vec();
                    let i = rng.random_range(0..128);
                    s[i] = s[i].wrapping_add(1);
                    Move {
                        state: s.into(),
                        ..next.clone()
                    }
                }
            };
            for m in [&next, &bad] {
                let rust = check_successor(&previous, m, 5)
                    .map_or_else(|e| (e.code(), e.rule_code()), |_| (0, 0));
                let evm = referee
                    .contract_transition(game_terms.game_id, 5, &previous, m)
                    .unwrap();
                assert_eq!(evm, rust, "game {game} ply {}: {m:?}", m.ply);
                if rust == (0, 0) {
                    honest += 1
                } else {
                    cheats += 1
                }
            }
            previous = next;
        }
    }
    assert!(
        honest > 300 && cheats > 300,
        "{honest} valid, {cheats} invalid transitions compared"
    );
}

/// Two funded accounts with known keys, a channel game between them, and its domain.
fn channel_game(referee: &mut Referee<RevmChain>, stake: u64) -> (OffChainGame, Address, Address) {
    let accounts = referee.chain().accounts().to_vec();
    let (white, black) = (accounts[1], accounts[2]);
    let mut setup = GameSetup::eth(black, U256::from(stake));
    // More than the response window: the side to move's clock runs through it.
    setup.initial_time = 900;
    setup.increment = 2;
    let created = referee
        .create_channel_game(white, &setup, 600)
        .expect("create");
    referee
        .join_game(black, created.id, U256::from(stake))
        .expect("join");
    let domain = referee.channel_domain().unwrap();
    let terms = referee.channel_game(created.id, None).unwrap();
    let ws = referee.chain().signer(white).unwrap();
    let bs = referee.chain().signer(black).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let joined_at = referee.chain().timestamp().unwrap();
    let expires = terms.key_expiry(joined_at, 200);
    let white_seat =
        Seat::with_session(ws, random_key(&mut rng), &domain, &terms, expires).unwrap();
    let black_seat = Seat::wallet(bs);
    (
        OffChainGame::new(domain, terms, white_seat, black_seat).unwrap(),
        white,
        black,
    )
}

/// Plays `ucis`, each move 3 s after the last (the first 3 s after the chain's clock),
/// each acknowledged at once; then brings the chain's clock up to the last receipt.
fn play(referee: &mut Referee<RevmChain>, g: &mut OffChainGame, ucis: &[&str]) {
    let chain = referee.chain().timestamp().unwrap();
    let mut now = g.last().timestamp.max(chain);
    for u in ucis {
        now += 3;
        g.play(chessref_core::Move::from_uci(u).unwrap(), now)
            .unwrap();
        g.receipt(now).unwrap();
    }
    referee.chain().advance_time(now - chain).unwrap();
}

fn verify(
    referee: &mut Referee<RevmChain>,
    t: &chessref_channel::Transcript,
) -> chessref_channel::TranscriptReport {
    let now = referee.chain().timestamp().unwrap();
    t.verify(&chessref_channel::NoPins, now).unwrap()
}

#[test]
fn a_signed_result_settles_in_one_transaction_and_pays_once() {
    let mut referee = Referee::deploy(RevmChain::new()).expect("deploy");
    let (mut g, white, black) = channel_game(&mut referee, 1000);
    play(&mut referee, &mut g, &["e2e4", "e7e5", "g1f3", "b8c6"]);
    let t = g.transcript_agreed(1).unwrap();
    let report = verify(&mut referee, &t);
    let acted = referee
        .send_channel(black, &report.settlement)
        .expect("settle");
    let ending = acted.ending.expect("ended");
    assert_eq!((ending.result.code(), ending.reason.code()), (1, 8));
    assert_eq!(
        referee.credits(white, Address::ZERO).unwrap(),
        U256::from(2000)
    );
    assert_eq!(referee.credits(black, Address::ZERO).unwrap(), U256::ZERO);
    let again = referee.send_channel(white, &report.settlement).unwrap_err();
    assert_eq!(
        again.revert().map(|r| r.name()).as_deref(),
        Some("GameNotRunning"),
        "{again}"
    );
}

#[test]
fn a_registered_position_continues_on_chain_and_a_registered_mate_ends_it_after_the_window() {
    let mut referee = Referee::deploy(RevmChain::new()).expect("deploy");
    let (mut g, white, black) = channel_game(&mut referee, 500);
    play(&mut referee, &mut g, &["f2f3", "e7e5"]);
    let report = verify(&mut referee, &g.transcript());
    assert_eq!(report.settlement.call, "register");
    let acted = referee
        .send_channel(black, &report.settlement)
        .expect("register");
    let registered = referee.registered(&acted).expect("PositionRegistered");
    assert_eq!(registered.ply, 2);
    // On-chain play from the registered position with the referee's ordinary move, once
    // the response window (600 s here) is over: until then it is frozen.
    let id = g.game.game_id;
    let early = referee
        .play_move(
            white,
            id,
            &registered.position,
            chessref_core::RawMove::from(chessref_core::Move::from_uci("g2g4").unwrap()).packed(),
        )
        .unwrap_err();
    assert_eq!(
        early.revert().map(|r| r.name()).as_deref(),
        Some("NotYetPlayable"),
        "{early}"
    );
    referee.chain().advance_time(601).unwrap();
    let moved = referee
        .play_move(
            white,
            id,
            &registered.position,
            chessref_core::RawMove::from(chessref_core::Move::from_uci("g2g4").unwrap()).packed(),
        )
        .expect("move on-chain");
    let mate = referee
        .play_move(
            black,
            id,
            &moved.position,
            chessref_core::RawMove::from(chessref_core::Move::from_uci("d8h4").unwrap()).packed(),
        )
        .expect("mate on-chain");
    let ending = mate.ending.expect("mate ends it");
    assert_eq!((ending.result.code(), ending.reason.code()), (2, 1));
    assert_eq!(
        referee.credits(black, Address::ZERO).unwrap(),
        U256::from(1000)
    );
    // Off-chain, the same mate registered ends a fresh game once its window is over (not
    // before: a later pair or a proof could still answer it).
    let (mut g, _, black) = channel_game(&mut referee, 500);
    play(&mut referee, &mut g, &["f2f3", "e7e5", "g2g4", "d8h4"]);
    let report = verify(&mut referee, &g.transcript());
    assert_eq!(report.settlement.ends, Some((2, 1)));
    let acted = referee
        .send_channel(black, &report.settlement)
        .expect("register the mate");
    assert!(
        acted.ending.is_none(),
        "a registration never ends a game at once"
    );
    let registered = referee.registered(&acted).expect("PositionRegistered");
    let id = g.game.game_id;
    let early = referee
        .finish_registered(white, id, &registered.position)
        .unwrap_err();
    assert_eq!(
        early.revert().map(|r| r.name()).as_deref(),
        Some("NotYetPlayable"),
        "{early}"
    );
    referee.chain().advance_time(601).unwrap();
    // Anyone finishes it (here the loser's opponent's account is not needed).
    let finished = referee
        .finish_registered(white, id, &registered.position)
        .expect("finish");
    let ending = finished.ending.expect("ended after the window");
    assert_eq!((ending.result.code(), ending.reason.code()), (2, 1));
}

#[test]
fn simulated_channel_games_end_as_the_mirror_predicts_on_every_path() {
    // Three games of every path.
    let games = 3 * chessref_evm::channel_sim::KINDS.len();
    let options = chessref_evm::channel_sim::ChannelSimOptions {
        games,
        seed: 11,
        max_plies: 120,
    };
    let summary =
        chessref_evm::channel_sim::simulate_channel(RevmChain::new(), &options).expect("simulate");
    assert_eq!(summary.mismatches, 0, "{:?}", summary.mismatch_details);
    assert_eq!(summary.games, games);
    for kind in chessref_evm::channel_sim::KINDS {
        assert_eq!(summary.endings.get(kind), Some(&3), "{kind}");
    }
    // Every attack was tried and refused: its outcomes name how.
    for kind in chessref_evm::channel_sim::ATTACKS {
        let stats = &summary.gas_by_ending[kind];
        assert_eq!(stats.games, 3, "{kind}");
        assert!(
            stats.outcomes.keys().all(|o| o.contains("refused")
                || o.contains("not final")
                || o.contains("not make")),
            "{kind}: {:?}",
            stats.outcomes
        );
    }
    // Issue 27, finding 3: the rotated-out key's resignation is refused as retired.
    let retired = &summary.gas_by_ending["retired_key"].outcomes;
    assert!(
        retired.keys().all(|o| o.contains("refused RetiredKey")),
        "{retired:?}"
    );
    assert!(summary.register_gas.max > 0 && summary.proof_gas.max > 0);
    // Issue 27's bar for a whole cooperative game, once the players' credit slots exist (the
    // first game is also the players' first stake: its slots are created then).
    assert!(summary.cooperative_first_stake_games >= 1);
    assert!(summary.cooperative_gas.max > 0);
    assert!(
        summary.cooperative_gas.max <= 250_000,
        "{:?}",
        summary.cooperative_gas
    );
}
