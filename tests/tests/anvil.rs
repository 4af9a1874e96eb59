//! The JSON-RPC path: the same harness against a real node, the
//! npm-installed anvil on 127.0.0.1 (started here on a free port, stopped at
//! the end; the test fails with a clear message if it is missing). Smaller
//! than the revm runs: a few games, illegal attempts, a timeout lifecycle with
//! time advanced on the node, and balances that account for gas fees.

use std::{fs::File, io::BufReader};

use alloy_primitives::{Address, U256};
use chessref_conformance::positions::shared_data_dir;
use chessref_core::{Move, PgnReader, RawMove, State};
use chessref_evm::{
    Chain, EndReason, EndResult, Ending, GameSetup, Position, Referee, Replayer, RevmChain,
    RpcChain, SimulateOptions, anvil::Anvil, simulate,
};

fn node() -> (Anvil, RpcChain) {
    let anvil = Anvil::spawn().unwrap_or_else(|e| {
        panic!("{e}\nthe RPC tests need the npm-installed anvil: run scripts/bootstrap.sh (or set $ANVIL)")
    });
    let chain = RpcChain::connect(anvil.url()).expect("connect to anvil");
    (anvil, chain)
}

#[test]
fn random_games_with_illegal_attempts_agree_on_anvil() {
    let (_anvil, rpc) = node();
    let options = SimulateOptions {
        games: 3,
        seed: 77,
        illegal_rate: 0.3,
        max_plies: 60,
    };
    let on_anvil = simulate(rpc, &options, |_| {}).expect("simulate on anvil");
    assert!(
        on_anvil.mismatches == 0,
        "{}",
        on_anvil.mismatch_details.join("\n")
    );
    assert!(
        on_anvil.plies >= 60 && on_anvil.illegal_attempts > 10,
        "{on_anvil:?}"
    );
    // The same games on revm: same moves, same verdicts, and (the clock word
    // aside, whose calldata bytes follow the node's wall clock) the same gas.
    let on_revm = simulate(RevmChain::new(), &options, |_| {}).expect("simulate on revm");
    assert_eq!(
        (on_revm.plies, on_revm.illegal_by_code),
        (on_anvil.plies, on_anvil.illegal_by_code)
    );
    let close = |a: u64, b: u64| a.abs_diff(b) <= 200;
    assert!(
        close(on_anvil.gas.median, on_revm.gas.median),
        "{:?} vs {:?}",
        on_anvil.gas,
        on_revm.gas
    );
    assert!(
        close(on_anvil.gas.max, on_revm.gas.max),
        "{:?} vs {:?}",
        on_anvil.gas,
        on_revm.gas
    );
    println!(
        "anvil: {:?} in {:.1} s; revm: {:?}",
        on_anvil.gas, on_anvil.seconds, on_revm.gas
    );
}

#[test]
fn real_games_replay_identically_on_anvil() {
    let path = shared_data_dir().join("pgn/lichess_2025-05_sample.pgn");
    let games: Vec<_> = match File::open(&path) {
        Ok(f) => PgnReader::new(BufReader::new(f)).take(4).collect(),
        Err(_) => {
            println!(
                "{} is ABSENT: replaying a built-in game instead",
                path.display()
            );
            let pgn = "[Event \"Opera\"]\n\n1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7 \
                8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7 14. Rd1 Qe6 \
                15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8# 1-0\n";
            PgnReader::new(std::io::Cursor::new(pgn)).collect()
        }
    };
    let (_anvil, rpc) = node();
    let mut replayer = Replayer::new(rpc).expect("deploy on anvil");
    for game in games {
        let report = replayer.replay(game).expect("replay on anvil");
        assert!(report.mismatches.is_empty(), "{:?}", report.mismatches);
        assert!(report.ending.is_some(), "game {} ended", report.index);
    }
    let summary = replayer.summary();
    println!("anvil replay: {summary:?}");
    assert!(summary.plies > 30);
}

#[test]
fn timeout_lifecycle_with_fees_on_anvil() {
    let (_anvil, rpc) = node();
    let mut referee = Referee::deploy(rpc).expect("deploy");
    let accounts = referee.chain().accounts().to_vec();
    let (white, black): (Address, Address) = (accounts[3], accounts[4]);
    let before = (
        referee.chain().balance(white).unwrap(),
        referee.chain().balance(black).unwrap(),
    );
    let stake = U256::from(10u64).pow(U256::from(18));
    let mut fees = (U256::ZERO, U256::ZERO);
    let mut setup = GameSetup::eth(black, stake);
    setup.initial_time = 60;
    let created = referee.create_game(white, &setup).expect("create");
    fees.0 += created.receipt.fee;
    let joined = referee.join_game(black, created.id, stake).expect("join");
    fees.1 += joined.receipt.fee;
    let mut state = State::initial();
    let mut position = Position {
        state: created.state,
        history: created.history,
        clock: joined.clock,
    };
    for (player, uci) in [(white, "e2e4"), (black, "e7e5")] {
        let mv = Move::from_uci(uci).unwrap();
        state = state.play(mv).unwrap();
        let moved = referee
            .play_move(player, created.id, &position, RawMove::from(mv).packed())
            .expect(uci);
        assert_eq!(moved.position.state, *state.as_bytes());
        if player == white {
            fees.0 += moved.receipt.fee
        } else {
            fees.1 += moved.receipt.fee
        }
        position = moved.position;
    }
    referee
        .chain()
        .advance_time(60 + 15 + 2)
        .expect("evm_increaseTime");
    let acted = referee
        .claim_timeout(black, created.id, &position)
        .expect("claimTimeout");
    fees.1 += acted.receipt.fee;
    assert_eq!(
        acted.ending,
        Some(Ending {
            result: EndResult::BlackWins,
            reason: EndReason::Timeout
        })
    );
    let withdrawn = referee.withdraw(black, Address::ZERO).expect("withdraw");
    fees.1 += withdrawn.fee;
    let after = (
        referee.chain().balance(white).unwrap(),
        referee.chain().balance(black).unwrap(),
    );
    assert!(fees.0 > U256::ZERO, "anvil charges gas");
    assert_eq!(after.0, before.0 - stake - fees.0);
    assert_eq!(after.1, before.1 + stake - fees.1);
    let address = referee.address();
    assert_eq!(referee.chain().balance(address).unwrap(), U256::ZERO);
}
