//! `chessref game ...`: one player's side of games at a deployed referee
//! (`chessref_client::seat` does the work; this module parses and prints).
//!
//! Every action is checked before it costs gas: the game exists and runs, it is the
//! player's turn, the move is legal (else its section 6 code and name, exit 1), and
//! the node's estimate does not revert (else the referee's error by name, exit 1).
//! Then the gas estimate and fee are shown, the transaction sent and its receipt
//! awaited (a spinner on a terminal).

use std::{io::IsTerminal, path::PathBuf, process::ExitCode, time::Duration};

use alloy_primitives::{Address, U256};
use chessref_client::{
    amount::Unit,
    channel_moves::{self, MovesFrom},
    seat::{CHANNEL_PLAY, GameSummary, GameView, Prepared, Seat, SeatError},
};
use chessref_evm::{Chain, GameSetup, RpcChain};
use chessref_index::ratings::{RatedGame, RatingSummary, Ratings, rate};
use clap::{Args as ClapArgs, Subcommand};
use serde::Serialize;

use super::{CliError, RefereeArgs, print_json, sender::SenderArgs};

/// Arguments of `chessref game`.
#[derive(ClapArgs)]
pub struct Args {
    #[command(subcommand)]
    command: GameCommand,
}

/// Where the referee is and who sits at it.
#[derive(ClapArgs)]
pub(super) struct SeatArgs {
    #[command(flatten)]
    pub(super) sender: SenderArgs,
    #[command(flatten)]
    pub(super) referee: RefereeArgs,
}

/// A game id and the seat.
#[derive(ClapArgs)]
struct GameArgs {
    /// The game id.
    #[arg(value_name = "ID")]
    id: U256,
    #[command(flatten)]
    seat: SeatArgs,
}

#[derive(Subcommand)]
enum GameCommand {
    /// Create a game (an open one unless --opponent names who may join).
    Create(CreateArgs),
    /// Join an open game under the terms its creation event states (paying the stake).
    Join(GameArgs),
    /// Draw the board: last move, whose turn, both clocks now; --json gives the same as data;
    /// --watch follows the game until it ends or it is your move.
    Show(ShowArgs),
    /// Play a move (SAN or UCI), checked locally first; --wait blocks until the opponent answered.
    Move(MoveArgs),
    /// Offer a draw in the current position.
    OfferDraw(GameArgs),
    /// Accept the opponent's draw offer.
    AcceptDraw(GameArgs),
    /// Claim a draw on your move: fifty moves, or threefold repetition (the witness is built here).
    ClaimDraw(GameArgs),
    /// Claim the opponent's timeout (or, before both first moves, abort the game).
    ClaimTimeout(GameArgs),
    /// Resign.
    Resign(GameArgs),
    /// Cancel an open game you created (the stake is credited back).
    Cancel(GameArgs),
    /// Withdraw your credit (winnings, refunds) of ETH or a token.
    Withdraw(WithdrawArgs),
    /// List your games (created, invited to, played) from the referee's events, with
    /// each opponent's Glicko-2 rating (from every game ended at the referee).
    List(ListArgs),
}

/// Arguments of `chessref game create`.
#[derive(ClapArgs)]
struct CreateArgs {
    #[command(flatten)]
    seat: SeatArgs,
    #[command(flatten)]
    terms: TermsArgs,
}

/// The terms of a game to create (`chessref game create`, `chessref channel create`).
#[derive(ClapArgs)]
pub(super) struct TermsArgs {
    /// Only this account may join (default: anyone).
    #[arg(long, value_name = "ADDRESS")]
    opponent: Option<Address>,
    /// Play black (default: white).
    #[arg(long)]
    black: bool,
    /// The stake token, an ERC-20 (default: ETH). An allowance short of the stake is
    /// approved first (its own transaction); a balance short of it is refused.
    #[arg(long, value_name = "ADDRESS")]
    token: Option<Address>,
    /// Stake of each player: wei, or ETH with its unit (`0.01eth`); for a --token, base
    /// units (an integer) or a decimal with the token's symbol (`1.5TST`).
    #[arg(long, value_name = "AMOUNT", default_value = "0")]
    stake: String,
    /// Each clock's initial time, seconds (60 .. 90 days).
    #[arg(long, value_name = "SECONDS", default_value_t = 86_400)]
    time: u32,
    /// Fischer increment per move, seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 0)]
    increment: u32,
    /// Seconds each side has for its first move before the game may be aborted (0: the referee's default, 300).
    #[arg(long, value_name = "SECONDS", default_value_t = 0)]
    first_move_window: u32,
}

/// Arguments of `chessref game show`.
#[derive(ClapArgs)]
struct ShowArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Print the game as one JSON object (with --watch: one line per change).
    #[arg(long)]
    json: bool,
    /// Redraw every --poll-ms (clearing the screen on a terminal; elsewhere printing only
    /// when the game changed) until the game ends or it is your move; Ctrl-C exits 0.
    #[arg(long)]
    watch: bool,
    /// Milliseconds between two reads of --watch.
    #[arg(long, value_name = "MS", default_value_t = 1_000)]
    poll_ms: u64,
    /// A channel game's moves from this transcript (checked against the chain's game
    /// first); without it, from the players' own folders (see --dir), or --relay.
    #[arg(long, value_name = "PATH", conflicts_with = "relay")]
    transcript: Option<PathBuf>,
    /// A channel game's moves from this relay's copy (`chessref serve`'s base URL),
    /// checked against the chain's game first.
    #[arg(long, value_name = "URL")]
    relay: Option<String>,
    /// Where `chessref channel play` keeps the players' game folders (default:
    /// ~/.chessref/channel), looked in for a channel game's moves.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Arguments of `chessref game move`.
#[derive(ClapArgs)]
struct MoveArgs {
    #[command(flatten)]
    game: GameArgs,
    /// The move: SAN (`Nf3`, `O-O`, `e8=Q`), UCI (`g1f3`, `e7e8q`) or a packed `0x` uint24.
    #[arg(value_name = "MOVE", allow_hyphen_values = true)]
    mv: String,
    /// After the move, wait until the opponent has answered (or the game ended), then show the position.
    #[arg(long)]
    wait: bool,
    /// Seconds --wait waits at most.
    #[arg(long, value_name = "SECONDS", default_value_t = 86_400)]
    timeout: u64,
    /// Milliseconds between two polls of --wait.
    #[arg(long, value_name = "MS", default_value_t = 1_000)]
    poll_ms: u64,
    /// Print the position shown after the move (after --wait: after the answer) as one JSON line, last on stdout.
    #[arg(long)]
    json: bool,
}

/// Arguments of `chessref game withdraw`.
#[derive(ClapArgs)]
struct WithdrawArgs {
    #[command(flatten)]
    seat: SeatArgs,
    /// The token (default: ETH).
    #[arg(long, value_name = "ADDRESS")]
    token: Option<Address>,
}

/// Arguments of `chessref game list`.
#[derive(ClapArgs)]
struct ListArgs {
    #[command(flatten)]
    seat: SeatArgs,
    /// Print the list as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `chessref game`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    match args.command {
        GameCommand::Create(a) => {
            let mut seat = sit(&a.seat)?;
            create(&mut seat, &a.terms, |seat, setup| seat.create(setup))?;
            Ok(ExitCode::SUCCESS)
        }
        GameCommand::Join(a) => {
            let mut seat = sit(&a.seat)?;
            join(&mut seat, a.id)?;
            Ok(ExitCode::SUCCESS)
        }
        GameCommand::Show(a) => {
            let mut seat = sit_to_read(&a.game.seat)?;
            if a.watch {
                return watch(
                    &mut seat,
                    a.game.id,
                    a.json,
                    Duration::from_millis(a.poll_ms),
                );
            }
            let mut view = seat.view(a.game.id).map_err(seat_error)?;
            if view.channel {
                let sources = channel_moves::Sources {
                    transcript: a.transcript,
                    relay: a.relay,
                    base: a.dir,
                };
                let (found, refused) =
                    channel_moves::find(&mut seat, a.game.id, &sources).map_err(seat_error)?;
                view.moves_refused = refused;
                if let Some(found) = found {
                    channel_moves::show_in(&mut view, found);
                }
            }
            show(&view, a.json)
        }
        GameCommand::Move(a) => {
            let mut seat = sit(&a.game.seat)?;
            let id = a.game.id;
            let prepared = seat.play(id, &a.mv).map_err(seat_error)?;
            transact(&mut seat, prepared)?;
            let view = if a.wait {
                if !a.json {
                    println!("waiting for the opponent's answer in game {id}");
                }
                seat.wait_for_turn(
                    id,
                    Duration::from_millis(a.poll_ms),
                    Duration::from_secs(a.timeout),
                )
                .map_err(seat_error)?
            } else {
                seat.view(id).map_err(seat_error)?
            };
            show(&view, a.json)
        }
        GameCommand::OfferDraw(a) => act(&a, |seat, id| seat.offer_draw(id)),
        GameCommand::AcceptDraw(a) => act(&a, |seat, id| seat.accept_draw(id)),
        GameCommand::ClaimDraw(a) => act(&a, |seat, id| seat.claim_draw(id)),
        GameCommand::ClaimTimeout(a) => act(&a, |seat, id| seat.claim_timeout(id)),
        GameCommand::Resign(a) => act(&a, |seat, id| seat.resign(id)),
        GameCommand::Cancel(a) => act(&a, |seat, id| seat.cancel(id)),
        GameCommand::Withdraw(a) => {
            let mut seat = sit(&a.seat)?;
            let token = a.token.unwrap_or(Address::ZERO);
            let prepared = seat.withdraw(token).map_err(seat_error)?;
            transact(&mut seat, prepared)?;
            let left = seat.credit(token).map_err(seat_error)?;
            let unit = seat.unit(token).map_err(seat_error)?;
            println!("credit left: {}", unit.format(left));
            Ok(ExitCode::SUCCESS)
        }
        GameCommand::List(a) => {
            let mut seat = sit(&a.seat)?;
            let games = seat.list().map_err(seat_error)?;
            let ratings = if games.iter().any(|g| g.opponent.is_some()) {
                ratings(&mut seat)?
            } else {
                Ratings::default()
            };
            let listed: Vec<Listed<'_>> = games
                .iter()
                .map(|game| Listed {
                    game,
                    opponent_rating: game.opponent.and_then(|o| ratings.summary(o)),
                })
                .collect();
            if a.json {
                print_json(
                    &serde_json::to_value(&listed).map_err(|e| CliError::Arg(e.to_string()))?,
                );
            } else {
                list(seat.player(), &listed);
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Creates a game on `terms` with `prepare` (`createGame` or `createChannelGame`),
/// approving a token stake first: its id.
pub(super) fn create(
    seat: &mut Seat,
    terms: &TermsArgs,
    prepare: impl FnOnce(&mut Seat, &GameSetup) -> Result<Prepared, SeatError>,
) -> Result<U256, CliError> {
    let token = terms.token.unwrap_or(Address::ZERO);
    let stake = seat
        .unit(token)
        .map_err(seat_error)?
        .parse(&terms.stake)
        .map_err(|e| CliError::Arg(e.to_string()))?;
    let setup = GameSetup {
        opponent: terms.opponent.unwrap_or(Address::ZERO),
        creator_white: !terms.black,
        token,
        stake,
        initial_time: terms.time,
        increment: terms.increment,
        first_move_window: terms.first_move_window,
        start: None,
    };
    if let Some(approve) = seat.approval(token, stake).map_err(seat_error)? {
        transact(seat, approve)?;
    }
    let prepared = prepare(seat, &setup).map_err(seat_error)?;
    let sent = transact(seat, prepared)?;
    let id = sent
        .created
        .ok_or_else(|| CliError::Arg("the creation reported no game id".into()))?;
    println!("created game {id}");
    Ok(id)
}

/// Joins game `id` (approving a token stake first).
pub(super) fn join(seat: &mut Seat, id: U256) -> Result<(), CliError> {
    let game = seat.joinable(id).map_err(seat_error)?;
    if let Some(approve) = seat.approval(game.token, game.stake).map_err(seat_error)? {
        transact(seat, approve)?;
    }
    let prepared = seat.join(id).map_err(seat_error)?;
    transact(seat, prepared)?;
    Ok(())
}

/// Connects and finds the referee: `--referee`, else the deployments file's entry for
/// the node's chain id.
pub(super) fn sit(args: &SeatArgs) -> Result<Seat, CliError> {
    let (chain, _) = args.sender.connect()?;
    seat_on(chain, args, Seat::new)
}

/// A seat for a command that only reads: the sender's when one is named (its views say
/// "you"), else nobody's, over a read-only connection (no key, no unlocked account: a
/// public endpoint has none).
pub(super) fn sit_to_read(args: &SeatArgs) -> Result<Seat, CliError> {
    let rpc = &args.sender.rpc;
    let connected = match args.sender.named_sender()? {
        Some(sender) => RpcChain::connect_as(rpc, &sender).map(|chain| (chain, Seat::new as _)),
        None => RpcChain::connect_read_only(rpc).map(|chain| (chain, Seat::watching as _)),
    };
    let (chain, seat) = connected.map_err(|e| CliError::Arg(e.to_string()))?;
    seat_on(chain, args, seat)
}

/// `seat` (`Seat::new` or `Seat::watching`) on `chain` at the referee `args` locate.
fn seat_on(
    mut chain: RpcChain,
    args: &SeatArgs,
    seat: fn(RpcChain, Address, u64) -> Result<Seat, SeatError>,
) -> Result<Seat, CliError> {
    let chain_id = chain.chain_id().map_err(|e| CliError::Arg(e.to_string()))?;
    let (referee, from_block) = args.referee.locate(chain_id)?;
    seat(chain, referee, from_block).map_err(seat_error)
}

/// A seat error as the CLI reports it: a refusal (nothing sent) exits 1, anything else 2.
pub(super) fn seat_error(error: SeatError) -> CliError {
    if let Some(revert) = error.revert() {
        CliError::Reverted {
            revert: Box::new(revert.clone()),
            message: error.to_string(),
        }
    } else if error.is_refusal() {
        CliError::Refused(error.to_string())
    } else {
        CliError::Arg(error.to_string())
    }
}

/// Prepares with `prepare` for the game id of `args`, then sends.
fn act(
    args: &GameArgs,
    prepare: impl FnOnce(&mut Seat, U256) -> Result<Prepared, SeatError>,
) -> Result<ExitCode, CliError> {
    let mut seat = sit(&args.seat)?;
    let prepared = prepare(&mut seat, args.id).map_err(seat_error)?;
    transact(&mut seat, prepared)?;
    Ok(ExitCode::SUCCESS)
}

/// Shows the estimate, sends with a spinner, prints the receipt and any ending.
pub(super) fn transact(
    seat: &mut Seat,
    prepared: Prepared,
) -> Result<chessref_client::seat::Sent, CliError> {
    let spinner = sending(
        &prepared.summary,
        seat.player(),
        prepared.gas,
        prepared.gas_price,
        prepared.fee(),
        prepared.operation,
    );
    let sent = seat.send(prepared);
    spinner.finish_and_clear();
    let sent = sent.map_err(seat_error)?;
    print_sent(&sent);
    Ok(sent)
}

/// Prints what is about to be sent (`summary` from `from`) and its estimate: the spinner
/// shown until the receipt.
pub(super) fn sending(
    summary: &str,
    from: Address,
    gas: u64,
    gas_price: u128,
    fee: U256,
    operation: &str,
) -> indicatif::ProgressBar {
    println!("{summary} from {from}");
    println!(
        "  estimated gas {gas} at {} gwei per gas: fee {}",
        gwei(gas_price),
        ether(fee)
    );
    spinner(operation)
}

/// Prints a mined transaction and the ending it caused.
pub(super) fn print_sent(sent: &chessref_client::seat::Sent) {
    let receipt = &sent.receipt;
    let tx = receipt
        .tx_hash
        .map_or_else(|| "?".to_string(), |h| h.to_string());
    let block = receipt
        .block_number
        .map_or_else(|| "?".to_string(), |b| b.to_string());
    println!(
        "  sent {}: tx {tx} in block {block}, {} gas, fee {}",
        sent.operation,
        receipt.gas_used,
        ether(receipt.fee)
    );
    if let Some(ending) = &sent.ending {
        println!("  the game ended: {ending}");
    }
}

/// A spinner on stderr while the receipt is awaited; hidden when stderr is not a terminal.
fn spinner(operation: &str) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let spinner = indicatif::ProgressBar::new_spinner();
    spinner.set_message(format!("waiting for the receipt of {operation}"));
    spinner.enable_steady_tick(Duration::from_millis(100));
    spinner
}

/// `wei` as ETH with up to 18 decimals, trailing zeros dropped.
fn ether(wei: U256) -> String {
    Unit::eth().format(wei)
}

/// `wei` per gas as gwei.
fn gwei(wei: u128) -> String {
    let whole = wei / 1_000_000_000;
    let fraction = format!("{:09}", wei % 1_000_000_000);
    let fraction = fraction.trim_end_matches('0');
    if fraction.is_empty() {
        whole.to_string()
    } else {
        format!("{whole}.{fraction}")
    }
}

/// `show --watch`: reads the game every `poll` and redraws it (a terminal: the screen
/// cleared, every time; elsewhere: only when something but the running clock changed;
/// `--json`: one line per change) until it is no longer running or open, or it is the
/// player's move. Ctrl-C ends it with exit 0.
fn watch(seat: &mut Seat, id: U256, json: bool, poll: Duration) -> Result<ExitCode, CliError> {
    exit_on_interrupt();
    let terminal = !json && std::io::stdout().is_terminal();
    let mut shown: Option<GameView> = None;
    loop {
        let view = seat.view(id).map_err(seat_error)?;
        let standing = without_now(&view);
        if terminal {
            print!("\x1b[2J\x1b[H{}", board(&view));
            std::io::Write::flush(&mut std::io::stdout())
                .map_err(|e| CliError::Arg(format!("stdout: {e}")))?;
        } else if shown.as_ref() != Some(&standing) {
            show(&view, json)?;
        }
        let waiting = matches!(view.phase, "open" | "running") && !view.channel;
        if !waiting || view.your_turn {
            return Ok(ExitCode::SUCCESS);
        }
        shown = Some(standing);
        std::thread::sleep(poll);
    }
}

/// `view` with the clocks as of the block only (what changes when the chain does).
fn without_now(view: &GameView) -> GameView {
    let mut view = view.clone();
    if let Some(clocks) = &mut view.clocks {
        clocks.run_to(clocks.block_timestamp);
        clocks.now = 0;
    }
    view
}

/// Ends the process with exit 0 on Ctrl-C (SIGINT), from now on.
fn exit_on_interrupt() {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    #[cfg(unix)]
    let interrupt = {
        let _entered = runtime.enter();
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()) {
            Ok(signal) => signal,
            Err(_) => return,
        }
    };
    std::thread::spawn(move || {
        #[cfg(unix)]
        let received = {
            let mut interrupt = interrupt;
            runtime.block_on(interrupt.recv()).is_some()
        };
        #[cfg(not(unix))]
        let received = runtime.block_on(tokio::signal::ctrl_c()).is_ok();
        if received {
            std::process::exit(0);
        }
    });
}

pub(super) fn show(view: &GameView, json: bool) -> Result<ExitCode, CliError> {
    if json {
        print_json(&serde_json::to_value(view).map_err(|e| CliError::Arg(e.to_string()))?);
    } else {
        print!("{}", board(view));
    }
    Ok(ExitCode::SUCCESS)
}

/// Every player's Glicko-2 rating from the games ended at `seat`'s referee, rated as the
/// index rates them (chessref-index's `ratings`), except that a client reading the chain
/// has no confirmation depth: a game counts as soon as its end is in a block.
pub(super) fn ratings(seat: &mut Seat) -> Result<Ratings, CliError> {
    let games = seat.all_games().map_err(seat_error)?;
    Ok(rate(games.iter().filter_map(RatedGame::of_log)))
}

/// A game of `chessref game list`, with the opponent's rating (null: no rated game).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Listed<'a> {
    #[serde(flatten)]
    game: &'a GameSummary,
    opponent_rating: Option<RatingSummary>,
}

fn list(player: Address, games: &[Listed<'_>]) {
    if games.is_empty() {
        println!("no games of {player}");
        return;
    }
    for Listed {
        game: g,
        opponent_rating,
    } in games
    {
        let colour = g.your_colour.unwrap_or("?");
        let opponent = g.opponent.map_or_else(
            || "anyone".to_string(),
            |a| match opponent_rating {
                Some(rating) => format!("{a} ({rating})"),
                None => format!("{a} (unrated)"),
            },
        );
        let mut line = format!(
            "game {}: {} as {colour} against {opponent}, stake {}, {} plies",
            g.id, g.phase, g.stake_text, g.ply
        );
        if g.channel && g.ending.is_none() {
            line.push_str(&format!(", {CHANNEL_PLAY}"));
        } else if g.channel {
            line.push_str(", a channel game");
        }
        if g.your_turn {
            line.push_str(", your move");
        }
        if let Some(ending) = g.ending {
            line.push_str(&format!(", {ending}"));
        }
        println!("{line}");
    }
}

/// Seconds as `1d 02:03:04` (days only when there are any).
pub(super) fn clock(seconds: u64) -> String {
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    let hms = format!(
        "{:02}:{:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    );
    if days > 0 {
        format!("{days}d {hms}")
    } else {
        hms
    }
}

fn figure(piece: char) -> char {
    match piece {
        'K' => '♔',
        'Q' => '♕',
        'R' => '♖',
        'B' => '♗',
        'N' => '♘',
        'P' => '♙',
        'k' => '♚',
        'q' => '♛',
        'r' => '♜',
        'b' => '♝',
        'n' => '♞',
        'p' => '♟',
        other => other,
    }
}

/// The board from the viewer's side (black at the bottom for black), the last move's
/// squares in brackets, then whose turn, the clocks, the moves and the result.
fn board(view: &GameView) -> String {
    let flipped = view.your_colour == Some("black");
    let mut out = String::new();
    out.push_str(&format!(
        "game {} at {} (chain {}): {}\n",
        view.id, view.referee, view.chain_id, view.phase
    ));
    let name = |who: Option<Address>| {
        who.map_or_else(
            || "(not joined)".to_string(),
            |a| {
                if a == view.you {
                    format!("{a} (you)")
                } else {
                    a.to_string()
                }
            },
        )
    };
    out.push_str(&format!(
        "white {}\nblack {}\nstake {} each\n",
        name(view.white),
        name(view.black),
        view.stake_text
    ));
    // A channel game that ended with nothing registered was settled off-chain: the chain
    // holds its result, not its moves, so no start position is drawn as if it were the end.
    let settled_off_chain = view.channel && view.phase == "ended" && view.registered_ply.is_none();
    for refused in &view.moves_refused {
        out.push_str(&format!(
            "not shown: the moves of {}: {}\n",
            refused.from, refused.why
        ));
    }
    if settled_off_chain && view.moves_from.is_none() {
        out.push_str(
            "a channel game, settled off-chain: the chain holds its result, not its moves (each player's transcript has them: `chessref game show ID --transcript PATH`, or --relay URL)\n",
        );
        return board_tail(view, out);
    }
    if settled_off_chain {
        out.push_str("a channel game, settled off-chain: its final position\n");
    } else if view.channel && view.phase != "ended" {
        out.push_str(&format!("a channel game: {CHANNEL_PLAY}\n"));
    } else if view.channel {
        out.push_str("a channel game, ended on-chain from its registered position:\n");
    }
    out.push_str(&grid(
        &view.fen,
        view.last_move.as_ref().map(|m| m.uci.as_str()),
        flipped,
    ));
    board_tail(view, out)
}

/// The 8 ranks and the files of `fen`'s placement, from black's side when `flipped`,
/// the squares of `last_uci` in brackets.
pub(super) fn grid(fen: &str, last_uci: Option<&str>, flipped: bool) -> String {
    let placement = fen.split(' ').next().unwrap_or_default();
    let mut squares = [[' '; 8]; 8];
    for (row, rank) in placement.split('/').enumerate().take(8) {
        let mut file = 0usize;
        for c in rank.chars() {
            match c.to_digit(10) {
                Some(n) => file += n as usize,
                None if file < 8 => {
                    squares[row][file] = figure(c);
                    file += 1;
                }
                None => {}
            }
        }
    }
    let marked: Vec<(usize, usize)> = last_uci
        .map(|uci| {
            let b = uci.as_bytes();
            [0usize, 2]
                .iter()
                .filter(|&&i| b.len() >= i + 2)
                .filter_map(|&i| {
                    let file = b[i].checked_sub(b'a')? as usize;
                    let rank = b[i + 1].checked_sub(b'1')? as usize;
                    (file < 8 && rank < 8).then_some((7 - rank, file))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut out = String::new();
    for display_row in 0..8 {
        let row = if flipped {
            7 - display_row
        } else {
            display_row
        };
        out.push_str(&format!(" {} ", 8 - row));
        for display_file in 0..8 {
            let file = if flipped {
                7 - display_file
            } else {
                display_file
            };
            let piece = match squares[row][file] {
                ' ' => '·',
                p => p,
            };
            if marked.contains(&(row, file)) {
                out.push_str(&format!("[{piece}]"));
            } else {
                out.push_str(&format!(" {piece} "));
            }
        }
        out.push('\n');
    }
    let files: Vec<String> = (0..8)
        .map(|f| {
            let f = if flipped { 7 - f } else { f };
            format!(" {} ", char::from(b'a' + f as u8))
        })
        .collect();
    out.push_str(&format!("   {}\n", files.concat()));
    out
}

/// The lines under the board: last move, turn, clocks, draw offer, moves, result.
fn board_tail(view: &GameView, mut out: String) -> String {
    if let Some(m) = &view.last_move {
        let number = m.ply.div_ceil(2);
        let dots = if m.ply % 2 == 1 { "." } else { "..." };
        out.push_str(&format!(
            "last move: {number}{dots} {} ({})\n",
            m.san.as_deref().unwrap_or(&m.uci),
            m.uci
        ));
    }
    if view.phase == "running" && !view.channel {
        let mut turn = format!("{} to move", view.turn);
        if view.your_turn {
            turn.push_str(" (your move)");
        }
        if view.in_check {
            turn.push_str(", in check");
        }
        out.push_str(&turn);
        out.push('\n');
    }
    if let Some(c) = &view.clocks {
        let mark = |side: &str| if c.running == side { " (running)" } else { "" };
        out.push_str(&format!(
            "clocks now: white {}{}, black {}{} (as of block {}, {} s ago)\n",
            clock(c.white_now),
            mark("white"),
            clock(c.black_now),
            mark("black"),
            c.block_number,
            c.age()
        ));
    }
    if let Some(by) = view.draw_offer {
        out.push_str(&format!("draw offered by {by}\n"));
    }
    if !view.moves.is_empty() {
        let mut text = String::new();
        for m in &view.moves {
            if m.ply % 2 == 1 {
                text.push_str(&format!("{}. ", m.ply.div_ceil(2)));
            }
            text.push_str(m.san.as_deref().unwrap_or(&m.uci));
            text.push(' ');
        }
        out.push_str(&format!("moves: {}\n", text.trim_end()));
    }
    if let Some(from) = view.moves_from.as_ref().filter(|f| **f != MovesFrom::Chain) {
        out.push_str(&format!("moves from {from}\n"));
    }
    if let Some(ending) = view.ending {
        out.push_str(&format!("result: {ending}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_and_clocks_read_as_a_person_writes_them() {
        assert_eq!(ether(U256::from(1_500_000_000_000_000_000u128)), "1.5 ETH");
        assert_eq!(
            ether(U256::from(52_345u64) * U256::from(1_000_000_000u64)),
            "0.000052345 ETH"
        );
        assert_eq!(ether(U256::ZERO), "0 ETH");
        assert_eq!(gwei(1_000_000_001), "1.000000001");
        assert_eq!(gwei(2_000_000_000), "2");
        assert_eq!(clock(86_400 + 3_723), "1d 01:02:03");
        assert_eq!(clock(59), "00:00:59");
    }
}
