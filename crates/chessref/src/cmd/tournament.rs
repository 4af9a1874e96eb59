//! `chessref tournament ...`: knockout events at a deployed referee's `ChessTournament`
//! (`chessref_evm::tournament` sends and reads; the terms are checked first with
//! `chessref_core::tournament`, the mirror of the contract's rules). This module parses
//! and prints: who plays which match and what a place pays come from the contract's
//! views (`pairing`, `getMatch`, `prizeOf`), never from a rule of its own.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use alloy_primitives::{Address, U256, Uint};
use chessref_client::seat::Seat;
use chessref_client::session::{Command, Event, Options, Session};
use chessref_core::Color;
use chessref_core::tournament::{BracketSize, MAX_FEE_BPS, MAX_REGISTRATION, Split};
use chessref_evm::bindings::IChessTournamentTypes::{EventInfo, EventTerms, MatchInfo};
use chessref_evm::tournament::Tournament;
use chessref_evm::{Borrowed, Chain, EvmError, Referee, RpcChain, Sender, TxReceipt};
use clap::{Args as ClapArgs, Subcommand};
use serde_json::{Value, json};

use super::channel_play::{DEFAULT_RELAY, Printer, commands_from_stdin, session_error};
use super::game::{SeatArgs, seat_error, sit, sit_to_read, transact};
use super::{CliError, print_json};

/// Arguments of `chessref tournament`.
#[derive(ClapArgs)]
pub struct Args {
    #[command(subcommand)]
    command: TournamentCommand,
}

#[derive(Subcommand)]
enum TournamentCommand {
    /// Create a knockout event (its terms are checked here first); prints its id.
    Create(CreateArgs),
    /// Enter an event, paying its fee (a token fee is approved first).
    Enter(EventArgs),
    /// The event: terms, entrants, the bracket by round, your next match, the prize of
    /// each place and your credit; --json gives the same as data.
    Show(ShowArgs),
    /// After the final (or for an event that did not fill: a refund): credit your prize,
    /// then withdraw your credit.
    Claim(EventArgs),
    /// The organiser, after the final: credit the organiser's fee, then withdraw your credit.
    ClaimFee(EventArgs),
    /// Play the event to its end: draw when due, start your match (white at once, black
    /// after half the first-move window), play its game (a channel event's through the
    /// relay, as `chessref channel play` does), report it, resolve a lot, go on to the next
    /// round; at the end claim and withdraw.
    Play(PlayArgs),
}

/// Arguments of `chessref tournament play`.
#[derive(ClapArgs)]
struct PlayArgs {
    #[command(flatten)]
    event: EventArgs,
    /// Scripted moves instead of a prompt: a line `white: e4 Nf3 ...` and a line
    /// `black: e5 ...`, played in every game of your colour (`draw` claims a draw by
    /// repetition or the fifty-move rule; in a channel game it offers a draw, or accepts
    /// the opponent's); when your list runs out on your move, you resign.
    #[arg(long, value_name = "FILE")]
    moves: Option<std::path::PathBuf>,
    /// Milliseconds between two reads of the chain.
    #[arg(long, value_name = "MS", default_value_t = 1_000)]
    poll_ms: u64,
    /// Seconds to play at most before giving up (exit 2).
    #[arg(long, value_name = "SECONDS", default_value_t = 7 * 86_400)]
    timeout: u64,
    /// A channel event's relay: the base URL of a `chessref serve --index` (as for
    /// `chessref channel play`).
    #[arg(long, value_name = "URL", default_value = DEFAULT_RELAY)]
    relay: String,
    /// Where a channel game's session key and transcript are kept (default:
    /// ~/.chessref/channel).
    #[arg(long, value_name = "PATH")]
    dir: Option<std::path::PathBuf>,
    /// Seconds of a channel opponent's silence before the session says so. (With --moves,
    /// black registers the start once white's first-move window is over without its first
    /// move, so that white loses on time on-chain.)
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    patience: u64,
}

/// An event id and the seat.
#[derive(ClapArgs)]
struct EventArgs {
    /// The event id.
    #[arg(value_name = "ID")]
    id: U256,
    #[command(flatten)]
    seat: SeatArgs,
}

/// Arguments of `chessref tournament show`.
#[derive(ClapArgs)]
struct ShowArgs {
    #[command(flatten)]
    event: EventArgs,
    /// Print the event as one JSON object.
    #[arg(long)]
    json: bool,
}

/// Arguments of `chessref tournament create`.
#[derive(ClapArgs)]
struct CreateArgs {
    #[command(flatten)]
    seat: SeatArgs,
    /// Players: 4, 8, 16, 32 or 64.
    #[arg(long, value_name = "PLAYERS")]
    size: u32,
    /// Entry fee of each player: wei, or ETH with its unit (`0.01eth`); for a --token,
    /// base units or a decimal with the token's symbol.
    #[arg(long, value_name = "AMOUNT")]
    fee: String,
    /// The fee token, an ERC-20 (default: ETH).
    #[arg(long, value_name = "ADDRESS")]
    token: Option<Address>,
    /// Each clock's initial time in the event's games, seconds.
    #[arg(long, value_name = "SECONDS")]
    time: u32,
    /// Fischer increment per move, seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 0)]
    increment: u32,
    /// Seconds each player has to start its game (0: the referee's default).
    #[arg(long, value_name = "SECONDS", default_value_t = 0)]
    first_move_window: u32,
    /// Registration closes: a span from now (`90m`, `2h`, `1d`) or a unix time.
    #[arg(long, value_name = "WHEN")]
    deadline: String,
    /// Prize of each player of each place, basis points: winner, finalist, each
    /// semi-finalist, ... (`6000,2500,750`: the shares times the players of each place
    /// sum to 10,000).
    #[arg(long, value_name = "BPS,...")]
    split: String,
    /// The organiser's fee, basis points of the pool (at most 1,000), credited after the final.
    #[arg(long, value_name = "BPS", default_value_t = 0)]
    organiser_fee: u16,
    /// Channel games (signed off-chain moves) instead of per-move games.
    #[arg(long)]
    channel: bool,
    /// A channel game's response window, seconds.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 600,
        requires = "channel"
    )]
    response_window: u32,
    /// How long past the side to move's deadline, nobody claiming, a game counts as
    /// abandoned by both (`1h` .. `30d`, or seconds).
    #[arg(long, value_name = "SPAN", default_value = "1h")]
    abandon_after: String,
}

/// Runs `chessref tournament`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    match args.command {
        TournamentCommand::Create(a) => create(&a),
        TournamentCommand::Enter(a) => enter(&a),
        TournamentCommand::Show(a) => show(&a),
        TournamentCommand::Claim(a) => claim(&a),
        TournamentCommand::ClaimFee(a) => claim_fee(&a),
        TournamentCommand::Play(a) => play(&a),
    }
}

/// The seat: its connection sends the tournament's transactions too ([`at`]), so the
/// sender has one nonce.
fn open(seat_args: &SeatArgs, read_only: bool) -> Result<Seat, CliError> {
    let mut seat = if read_only {
        sit_to_read(seat_args)?
    } else {
        sit(seat_args)?
    };
    let referee = seat.referee().address();
    let address = at(&mut seat).address();
    let code = seat
        .referee()
        .chain()
        .code(address)
        .map_err(|e| CliError::Arg(e.to_string()))?;
    if code.is_empty() {
        return Err(CliError::Refused(format!(
            "the referee {referee} has no tournament at {address} (deployed before tournaments?)"
        )));
    }
    Ok(seat)
}

/// The tournament driver of the seat's referee, over the seat's connection.
fn at(seat: &mut Seat) -> Tournament<Borrowed<'_, RpcChain>> {
    let referee = seat.referee().address();
    Tournament::of(Referee::at(Borrowed(seat.referee().chain()), referee))
}

/// Whether the latest block is `block` or later, so the next transaction can read its hash
/// (the draw's and a lot's: sending before would only revert).
fn past(seat: &mut Seat, block: u64) -> Result<bool, CliError> {
    let head = seat
        .referee()
        .chain()
        .head()
        .map_err(|e| CliError::Arg(e.to_string()))?;
    Ok(head >= block)
}

/// The chain's time (the latest block's).
fn chain_time(seat: &mut Seat) -> Result<u64, CliError> {
    seat.referee()
        .chain()
        .timestamp()
        .map_err(|e| CliError::Arg(e.to_string()))
}

/// A driver error as the CLI reports it: a revert in words (exit 1), else exit 2.
fn evm_error(error: EvmError) -> CliError {
    match error {
        EvmError::Reverted {
            operation, revert, ..
        } => CliError::Reverted {
            message: format!("{operation} refused: {revert}"),
            revert: Box::new(revert),
        },
        other => CliError::Arg(other.to_string()),
    }
}

/// Prints a mined transaction of the tournament.
fn print_receipt(operation: &str, receipt: &TxReceipt) {
    let tx = receipt
        .tx_hash
        .map_or_else(|| "?".to_string(), |h| h.to_string());
    println!("  sent {operation}: tx {tx}, {} gas", receipt.gas_used);
}

fn create(args: &CreateArgs) -> Result<ExitCode, CliError> {
    let size = BracketSize::new(args.size).map_err(|e| CliError::Arg(e.to_string()))?;
    let split = parse_split(&args.split)?;
    Split::new(size, &split).map_err(|e| CliError::Arg(e.to_string()))?;
    if args.organiser_fee > MAX_FEE_BPS {
        return Err(CliError::Arg(format!(
            "--organiser-fee {} is above the cap of {MAX_FEE_BPS} basis points (10 %)",
            args.organiser_fee
        )));
    }
    let abandon_after = parse_span(&args.abandon_after)
        .or_else(|| args.abandon_after.parse().ok())
        .and_then(|s: u64| u32::try_from(s).ok())
        .ok_or_else(|| {
            CliError::Arg(format!(
                "--abandon-after {:?} is not a span (`1h`, `2d`) or seconds",
                args.abandon_after
            ))
        })?;
    let mut seat = open(&args.seat, false)?;
    let token = args.token.unwrap_or(Address::ZERO);
    let fee = seat
        .unit(token)
        .map_err(seat_error)?
        .parse(&args.fee)
        .map_err(|e| CliError::Arg(e.to_string()))?;
    if fee >= U256::from(1u8) << 96 {
        return Err(CliError::Arg(format!(
            "--fee {} is above 2^96 - 1",
            args.fee
        )));
    }
    let fee = Uint::<96, 2>::from(fee.to::<u128>());
    let now = chain_time(&mut seat)?;
    let deadline = parse_when(&args.deadline, now)?;
    let terms = EventTerms {
        token,
        fee,
        size: size.players(),
        initialTime: args.time,
        increment: args.increment,
        firstMoveWindow: args.first_move_window,
        responseWindow: if args.channel {
            args.response_window
        } else {
            0
        },
        deadline: Uint::<40, 1>::from(deadline),
        feeBps: args.organiser_fee,
        split,
        abandonAfter: abandon_after,
    };
    let organiser = seat.player();
    let (id, receipt) = at(&mut seat)
        .create_event(organiser, terms)
        .map_err(evm_error)?;
    print_receipt("createEvent", &receipt);
    println!("created event {id}");
    Ok(ExitCode::SUCCESS)
}

fn enter(args: &EventArgs) -> Result<ExitCode, CliError> {
    let mut seat = open(&args.seat, false)?;
    let event = at(&mut seat).event(args.id).map_err(evm_error)?;
    if event.organiser == Address::ZERO {
        return Err(CliError::Refused(format!("there is no event {}", args.id)));
    }
    let fee = U256::from(event.fee);
    let player = seat.player();
    if event.token != Address::ZERO {
        let spender = at(&mut seat).address();
        if let Some(approve) = seat
            .approval_to(event.token, fee, spender, "the tournament", "the entry fee")
            .map_err(seat_error)?
        {
            transact(&mut seat, approve)?;
        }
    }
    let value = if event.token == Address::ZERO {
        fee
    } else {
        U256::ZERO
    };
    let receipt = at(&mut seat)
        .enter(player, args.id, value)
        .map_err(evm_error)?;
    print_receipt("enter", &receipt);
    let unit = seat.unit(event.token).map_err(seat_error)?;
    println!(
        "entered event {} as {player}, paying {}",
        args.id,
        unit.format(fee)
    );
    Ok(ExitCode::SUCCESS)
}

fn claim(args: &EventArgs) -> Result<ExitCode, CliError> {
    let mut seat = open(&args.seat, false)?;
    let player = seat.player();
    let event = at(&mut seat).event(args.id).map_err(evm_error)?;
    let unit = seat.unit(event.token).map_err(seat_error)?;
    let (amount, receipt) = at(&mut seat).claim(player, args.id).map_err(evm_error)?;
    print_receipt("claim", &receipt);
    println!("credited {}", unit.format(amount));
    withdraw_credit(&mut seat, event.token)?;
    Ok(ExitCode::SUCCESS)
}

fn claim_fee(args: &EventArgs) -> Result<ExitCode, CliError> {
    let mut seat = open(&args.seat, false)?;
    let organiser = seat.player();
    let event = at(&mut seat).event(args.id).map_err(evm_error)?;
    if event.organiser == Address::ZERO {
        return Err(CliError::Refused(format!("there is no event {}", args.id)));
    }
    // Checked here so that the refusal names the organiser; the contract refuses too.
    if event.organiser != organiser {
        return Err(CliError::Refused(format!(
            "only the organiser {} claims the fee of event {}, not {organiser}",
            event.organiser, args.id
        )));
    }
    let unit = seat.unit(event.token).map_err(seat_error)?;
    let (amount, receipt) = at(&mut seat)
        .claim_fee(organiser, args.id)
        .map_err(evm_error)?;
    print_receipt("claimFee", &receipt);
    println!(
        "credited the organiser's fee of event {}: {}",
        args.id,
        unit.format(amount)
    );
    withdraw_credit(&mut seat, event.token)?;
    Ok(ExitCode::SUCCESS)
}

/// Withdraws the player's whole credit in `token` at the tournament, if it has one.
fn withdraw_credit(seat: &mut Seat, token: Address) -> Result<(), CliError> {
    let you = seat.player();
    let unit = seat.unit(token).map_err(seat_error)?;
    let credit = at(seat).credits(you, token).map_err(evm_error)?;
    if !credit.is_zero() {
        let receipt = at(seat).withdraw(you, token).map_err(evm_error)?;
        print_receipt("withdraw", &receipt);
        println!("withdrew {}", unit.format(credit));
    }
    Ok(())
}

/// Where the player stands in a drawn event, from the contract's views (its round-0
/// match from `pairing`, then up the bracket by the mirror's `parent` while it wins).
enum Standing {
    /// Its match `m` waits for a start; its players, once known.
    Waiting(u8, Option<(Address, Address)>),
    /// Its match `m` is played as this game.
    Running(u8, U256),
    /// Its match `m` was drawn and waits for its lot, the hash of this block.
    Lot(u8, u64),
    /// Out, or the winner: nothing left to play.
    Done,
}

fn standing(
    seat: &mut Seat,
    id: U256,
    size: BracketSize,
    you: Address,
) -> Result<Standing, CliError> {
    let mut current = None;
    for m in size.round_matches(0) {
        let (white, black) = at(seat).pairing(id, m.get()).map_err(evm_error)?;
        if white == you || black == you {
            current = Some(m);
        }
    }
    let Some(mut m) = current else {
        return Err(CliError::Refused(format!("you hold no seat in event {id}")));
    };
    loop {
        let info = at(seat).match_info(id, m.get()).map_err(evm_error)?;
        return Ok(match info.status {
            0 => Standing::Waiting(m.get(), at(seat).pairing(id, m.get()).ok()),
            1 => Standing::Running(m.get(), info.gameId),
            3 => Standing::Lot(m.get(), info.lotBlock.saturating_to()),
            2 if info.winner == you => match size.parent(m) {
                Some(parent) => {
                    m = parent;
                    continue;
                }
                None => Standing::Done,
            },
            _ => Standing::Done,
        });
    }
}

/// A scripted move that asks for a draw: in a per-move game a claim (threefold repetition
/// or the fifty-move rule), in a channel game an offer, or the acceptance of one.
const DRAW: &str = "draw";

/// The scripted moves of `--moves`: white's and black's.
#[derive(Clone)]
struct Script {
    white: Vec<String>,
    black: Vec<String>,
}

fn read_script(path: &std::path::Path) -> Result<Script, CliError> {
    let text = std::fs::read_to_string(path).map_err(|source| CliError::Io {
        path: path.display().to_string(),
        source,
    })?;
    let mut script = Script {
        white: Vec::new(),
        black: Vec::new(),
    };
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (colour, moves) = line.split_once(':').ok_or_else(|| {
            CliError::Arg(format!(
                "{}: {line:?} is not `white: MOVES` or `black: MOVES`",
                path.display()
            ))
        })?;
        let moves = moves.split_whitespace().map(str::to_string).collect();
        match colour.trim() {
            "white" => script.white = moves,
            "black" => script.black = moves,
            other => {
                return Err(CliError::Arg(format!(
                    "{}: {other:?} is not white or black",
                    path.display()
                )));
            }
        }
    }
    Ok(script)
}

/// Whether `error` is the contract's `name` (a race another player won, or a wait).
fn is_revert(error: &EvmError, names: &[&str]) -> bool {
    error
        .revert()
        .is_some_and(|r| names.contains(&r.name().as_str()))
}

/// `report` of match `m`, whose game `game` ended (a report another player sent first
/// is no error).
fn report(seat: &mut Seat, id: U256, m: u8, game: U256) -> Result<(), CliError> {
    let you = seat.player();
    match at(seat).report(you, id, m) {
        Ok(receipt) => {
            print_receipt("report", &receipt);
            println!("reported match {m} (game {game})");
            Ok(())
        }
        Err(e) if is_revert(&e, &["NotRunning"]) => Ok(()),
        Err(e) => Err(evm_error(e)),
    }
}

/// Whether event `id` plays channel games (`false` for no such event: the loop says so).
fn event_is_channel(seat: &mut Seat, id: U256) -> Result<bool, CliError> {
    Ok(at(seat).event(id).map_err(evm_error)?.responseWindow != 0)
}

/// Plays channel game `game` in the player's session ([`Session`], what `chessref
/// channel play` runs), printing its events as that command does, until the game ended
/// off-chain and the winner settled it (or it went on-chain and ended there). Moves come
/// from the script as the session asks for them, else from standard input.
fn play_channel(
    args: &PlayArgs,
    game: ChannelMatch,
    script: Option<&Script>,
    typed: &mpsc::Receiver<Command>,
    give_up_at: std::time::Instant,
) -> Result<(), CliError> {
    let Sender::Local(wallet) = args.event.seat.sender.sender()? else {
        return Err(CliError::Arg(
            "a channel game signs messages here: give a key, not --unlocked".into(),
        ));
    };
    let seat = sit(&args.event.seat)?;
    let (commands, scripted) = mpsc::channel();
    let moved = Arc::new(AtomicBool::new(false));
    let over = Arc::new(AtomicBool::new(false));
    if script.is_some() {
        let chain = RpcChain::connect_read_only(&args.event.seat.sender.rpc)
            .map_err(|e| CliError::Arg(e.to_string()))?;
        let watch = Watch {
            chain,
            game,
            commands: commands.clone(),
            moved: moved.clone(),
            over: over.clone(),
            give_up_at,
        };
        std::thread::spawn(move || watch.run());
    }
    let mut printer = Printer::new(false);
    let mut feeder = script.cloned().map(|script| Feeder {
        script,
        colour: None,
        asked: None,
        moved,
        commands,
    });
    let input = if feeder.is_some() { &scripted } else { typed };
    let sink = Box::new(move |event: Event| {
        if let Some(feeder) = feeder.as_mut() {
            feeder.hear(&event);
        }
        printer.print(event);
    });
    let options = Options {
        id: game.id,
        relay: args.relay.clone(),
        dir: args.dir.clone(),
        patience: Duration::from_secs(args.patience),
        auto_register: true,
    };
    println!(
        "game {} is a channel game: playing it through the relay {}",
        game.id, args.relay
    );
    let played = Session::open(seat, &wallet, options, sink)
        .and_then(|mut session| session.run(input))
        .map_err(session_error);
    over.store(true, Ordering::Relaxed);
    played
}

/// A channel game of the player's match, as the scripted session's [`Watch`] needs it.
#[derive(Clone, Copy)]
struct ChannelMatch {
    /// The referee game.
    id: U256,
    /// When white's first-move window ends (the chain's time): the start plus the window.
    first_move_due: u64,
    /// Whether the player is black.
    black: bool,
}

/// Beside a scripted channel session, on the chain's clock: registers the start once
/// white's first-move window is over and white never moved (`registerStart`: on-chain,
/// white then loses on time), and leaves the session at `--timeout`.
struct Watch {
    chain: RpcChain,
    game: ChannelMatch,
    commands: mpsc::Sender<Command>,
    /// Set by the [`Feeder`] at the game's first move.
    moved: Arc<AtomicBool>,
    /// Set once the session returned.
    over: Arc<AtomicBool>,
    give_up_at: std::time::Instant,
}

impl Watch {
    fn run(mut self) {
        let mut registered = false;
        while !self.over.load(Ordering::Relaxed) {
            if std::time::Instant::now() >= self.give_up_at {
                let _ = self.commands.send(Command::Quit);
                return;
            }
            let late = self.game.black
                && !registered
                && !self.moved.load(Ordering::Relaxed)
                && self
                    .chain
                    .timestamp()
                    .is_ok_and(|now| now >= self.game.first_move_due);
            if late {
                registered = true;
                println!(
                    "white did not make its first move in its window: registering the start of game {}",
                    self.game.id
                );
                let _ = self.commands.send(Command::Register);
            }
            std::thread::sleep(Duration::from_secs(1));
        }
    }
}

/// Answers a channel session's events with the script's moves: the one of the player's
/// colour at its turn (`draw` offers a draw, or accepts the opponent's; past the end of
/// the list, resign). Once play goes on on-chain the session is left ([`Command::Quit`])
/// for the loop that plays per-move games, which also claims the opponent's timeout.
struct Feeder {
    script: Script,
    colour: Option<Color>,
    /// Set at the game's first move ([`Watch`]).
    moved: Arc<AtomicBool>,
    /// The ply of the latest position a command was sent for (each is answered once).
    asked: Option<u32>,
    commands: mpsc::Sender<Command>,
}

impl Feeder {
    fn hear(&mut self, event: &Event) {
        match event {
            Event::Started { colour, .. } => self.colour = Some(*colour),
            Event::Board(board) if board.your_move => self.turn(board.ply),
            Event::Position(view) if view.your_turn && view.phase == "running" => {
                self.turn(u32::try_from(view.moves.len()).unwrap_or(u32::MAX))
            }
            Event::Move(_) => self.moved.store(true, Ordering::Relaxed),
            Event::Live { .. } => {
                let _ = self.commands.send(Command::Quit);
            }
            // Accepted only when the script would offer one itself next.
            Event::DrawOffer { .. }
                if self.next(self.asked.map_or(0, |ply| ply + 1)).as_deref() == Some(DRAW) =>
            {
                let _ = self.commands.send(Command::Draw);
            }
            _ => {}
        }
    }

    /// The script's entry for the player's move at `ply` (its `ply / 2`-th), if any.
    fn next(&self, ply: u32) -> Option<String> {
        let list = match self.colour? {
            Color::White => &self.script.white,
            Color::Black => &self.script.black,
        };
        list.get(usize::try_from(ply / 2).ok()?).cloned()
    }

    fn turn(&mut self, ply: u32) {
        if self.colour.is_none() || self.asked == Some(ply) {
            return;
        }
        self.asked = Some(ply);
        let command = match self.next(ply) {
            Some(text) if text == DRAW => Command::Draw,
            Some(text) => Command::Move(text),
            None => {
                println!("no scripted move left: resigning");
                Command::Resign
            }
        };
        let _ = self.commands.send(command);
    }
}

/// One turn of the player in running game `game`: a move (scripted, else read from
/// stdin), a timeout claim when the opponent's flag fell, or a report once it ended.
/// Whether it did something.
fn play_turn(
    seat: &mut Seat,
    id: U256,
    m: u8,
    game: U256,
    script: Option<&Script>,
) -> Result<bool, CliError> {
    let view = seat.view(game).map_err(seat_error)?;
    if view.phase != "running" {
        report(seat, id, m, game)?;
        return Ok(true);
    }
    if !view.your_turn {
        // A channel game played on from a registration shows no clocks: the referee's
        // estimate of `claimTimeout` says whether the flag fell (`TimeNotUp` until then).
        let flag_fell = view
            .clocks
            .as_ref()
            .is_none_or(|c| c.block_timestamp > c.deadline);
        if flag_fell {
            match seat.claim_timeout(game) {
                Ok(prepared) => {
                    transact(seat, prepared)?;
                    return Ok(true);
                }
                Err(e)
                    if view.clocks.is_none()
                        && e.revert().is_some_and(|r| r.name() == "TimeNotUp") =>
                {
                    return Ok(false);
                }
                Err(e) => return Err(seat_error(e)),
            }
        }
        return Ok(false);
    }
    let white = view.your_colour == Some("white");
    let mine = view
        .moves
        .iter()
        .filter(|mv| (mv.ply % 2 == 1) == white)
        .count();
    let text = match script {
        Some(script) => {
            let list = if white { &script.white } else { &script.black };
            match list.get(mine) {
                Some(text) => text.clone(),
                None => {
                    println!("no scripted move left in game {game}: resigning");
                    let prepared = seat.resign(game).map_err(seat_error)?;
                    transact(seat, prepared)?;
                    return Ok(true);
                }
            }
        }
        None => {
            println!("{}", board_line(&view));
            print!("your move in game {game}: ");
            std::io::Write::flush(&mut std::io::stdout())?;
            let mut line = String::new();
            if std::io::stdin().read_line(&mut line)? == 0 {
                return Err(CliError::Arg(
                    "stdin ended before your move (give --moves FILE to script them)".into(),
                ));
            }
            line.trim().to_string()
        }
    };
    let prepared = if text == DRAW {
        println!("claiming a draw in game {game}");
        seat.claim_draw(game)
    } else {
        seat.play(game, &text)
    };
    match prepared {
        Ok(prepared) => {
            transact(seat, prepared)?;
        }
        Err(e) if script.is_none() => eprintln!("{}", seat_error(e)),
        Err(e) => return Err(seat_error(e)),
    }
    Ok(true)
}

fn board_line(view: &chessref_client::seat::GameView) -> String {
    let last = view
        .last_move
        .as_ref()
        .and_then(|mv| mv.san.as_deref())
        .map_or_else(String::new, |san| format!(" after {san}"));
    format!("game {}: {}{last}", view.id, view.fen)
}

/// Claims the player's prize or refund (if not claimed yet) and withdraws its credit.
fn settle(seat: &mut Seat, id: U256, token: Address) -> Result<(), CliError> {
    let you = seat.player();
    let unit = seat.unit(token).map_err(seat_error)?;
    match at(seat).claim(you, id) {
        Ok((amount, receipt)) => {
            print_receipt("claim", &receipt);
            println!("credited {}", unit.format(amount));
        }
        Err(e) if is_revert(&e, &["AlreadyClaimed"]) => {}
        Err(e) => return Err(evm_error(e)),
    }
    withdraw_credit(seat, token)
}

fn play(args: &PlayArgs) -> Result<ExitCode, CliError> {
    let id = args.event.id;
    let script = args.moves.as_deref().map(read_script).transpose()?;
    let mut seat = open(&args.event.seat, false)?;
    let you = seat.player();
    let poll = std::time::Duration::from_millis(args.poll_ms);
    let started = std::time::Instant::now();
    // When (the chain's time) a match the player is black in was first seen startable: the
    // first-move window it waits half of runs on the chain's clock, so the wait does too.
    let mut startable_since: Option<(u8, u64)> = None;
    // The channel games whose session ran (once each: a session returns once its game
    // ended, settled by the winner).
    let mut sessions = std::collections::HashSet::new();
    // A person's lines for the sessions: one reader of standard input for every game.
    let (typed, typed_input) = mpsc::channel();
    if event_is_channel(&mut seat, id)? {
        let sender = args.event.seat.sender.sender()?;
        if !matches!(sender, Sender::Local(_)) {
            return Err(CliError::Arg(format!(
                "event {id} plays channel games, whose moves are signed here: give a key (CHESSREF_PRIVATE_KEY or --keystore), not --unlocked"
            )));
        }
        if script.is_none() {
            commands_from_stdin(typed);
        }
    }
    let mut said = String::new();
    let mut say = |text: String| {
        if text != said {
            println!("{text}");
            said = text;
        }
    };
    loop {
        if started.elapsed().as_secs() > args.timeout {
            return Err(CliError::Arg(format!(
                "event {id} not over after {} s (--timeout)",
                args.timeout
            )));
        }
        let event = at(&mut seat).event(id).map_err(evm_error)?;
        if event.organiser == Address::ZERO {
            return Err(CliError::Refused(format!("there is no event {id}")));
        }
        if event.cancelled {
            return Err(CliError::Refused(format!("event {id} was cancelled")));
        }
        let size = BracketSize::new(u32::from(event.size))
            .map_err(|e| CliError::Arg(format!("event {id}: {e}")))?;
        let acted = if !event.drawn {
            let now = at(&mut seat)
                .referee()
                .chain()
                .timestamp()
                .map_err(|e| CliError::Arg(e.to_string()))?;
            if event.entrants == event.size && !past(&mut seat, event.drawBlock.to::<u64>())? {
                // The draw block's hash does not exist yet: nothing to send (a dev node
                // mines no block until something is sent).
                say(format!(
                    "event {id} is full: the draw waits for block {}",
                    event.drawBlock
                ));
                false
            } else if event.entrants == event.size {
                match at(&mut seat).draw(you, id) {
                    Ok(receipt) => {
                        print_receipt("draw", &receipt);
                        true
                    }
                    Err(e) if is_revert(&e, &["NotDrawnYet", "AlreadyDrawn"]) => false,
                    Err(e) => return Err(evm_error(e)),
                }
            } else if now > event.deadline.to::<u64>() {
                println!("event {id} did not fill by its deadline: claiming the refund");
                settle(&mut seat, id, event.token)?;
                return Ok(ExitCode::SUCCESS);
            } else {
                say(format!(
                    "waiting for entrants: {} of {}",
                    event.entrants, event.size
                ));
                false
            }
        } else {
            match standing(&mut seat, id, size, you)? {
                Standing::Done if event.finished => {
                    println!("event {id} is over");
                    settle(&mut seat, id, event.token)?;
                    return Ok(ExitCode::SUCCESS);
                }
                Standing::Done => {
                    say("nothing left to play: waiting for the final".to_string());
                    false
                }
                Standing::Waiting(m, None) => {
                    say(format!("match {m}: waiting for the opponent"));
                    false
                }
                Standing::Waiting(m, Some((white, _))) => {
                    let half = u64::from(event.firstMoveWindow / 2);
                    let now = chain_time(&mut seat)?;
                    let since = match startable_since {
                        Some((seen, at)) if seen == m => at,
                        _ => {
                            startable_since = Some((m, now));
                            now
                        }
                    };
                    if white == you || now >= since.saturating_add(half) {
                        match at(&mut seat).start(you, id, m) {
                            Ok(started) => {
                                print_receipt("start", &started.receipt);
                                match started.hosted {
                                    Some(h) => println!(
                                        "match {m} is game {}: {} (white) v {} (black)",
                                        h.game_id, h.white, h.black
                                    ),
                                    None => println!("match {m} was decided without a game"),
                                }
                                true
                            }
                            Err(e) if is_revert(&e, &["AlreadyStarted"]) => true,
                            Err(e) => return Err(evm_error(e)),
                        }
                    } else {
                        say(format!("match {m}: waiting for white to start it"));
                        false
                    }
                }
                Standing::Running(m, game) if event.responseWindow != 0 => {
                    if sessions.insert(game) {
                        let info = at(&mut seat).match_info(id, m).map_err(evm_error)?;
                        let started_at = info.startedAt.saturating_to::<u64>();
                        let channel = ChannelMatch {
                            id: game,
                            first_move_due: started_at + u64::from(event.firstMoveWindow),
                            black: info.black == you,
                        };
                        let give_up_at = started + std::time::Duration::from_secs(args.timeout);
                        play_channel(args, channel, script.as_ref(), &typed_input, give_up_at)?;
                        // The session sent from a connection of its own: this one's nonce
                        // is stale.
                        seat = open(&args.event.seat, false)?;
                        true
                    } else {
                        let ended = seat.view(game).map_err(seat_error)?.phase != "running";
                        let registered = !seat
                            .game(game)
                            .map_err(seat_error)?
                            .registrations
                            .is_empty();
                        if ended {
                            report(&mut seat, id, m, game)?;
                            true
                        } else if registered {
                            // The session handed the game over once it went on-chain: moves,
                            // the opponent's timeout and the report, as in a per-move game.
                            play_turn(&mut seat, id, m, game, script.as_ref())?
                        } else {
                            // The session ended with the game off-chain; the winner settles it.
                            say(format!("match {m}: waiting for game {game} to be settled"));
                            false
                        }
                    }
                }
                Standing::Running(m, game) => play_turn(&mut seat, id, m, game, script.as_ref())?,
                Standing::Lot(m, lot_block) if !past(&mut seat, lot_block)? => {
                    say(format!(
                        "match {m} was drawn: its lot waits for block {lot_block}"
                    ));
                    false
                }
                Standing::Lot(m, _) => match at(&mut seat).resolve_lot(you, id, m) {
                    Ok(receipt) => {
                        print_receipt("resolveLot", &receipt);
                        true
                    }
                    Err(e) if is_revert(&e, &["LotPending", "NoLot"]) => false,
                    Err(e) => return Err(evm_error(e)),
                },
            }
        };
        if !acted {
            std::thread::sleep(poll);
        }
    }
}

/// A match as `show` gives it.
struct Shown {
    index: u8,
    round: u8,
    info: MatchInfo,
    /// White and black: the started game's, else the contract's `pairing` once the
    /// players are known.
    players: Option<(Address, Address)>,
}

fn match_status(status: u8) -> &'static str {
    match status {
        0 => "waiting",
        1 => "running",
        2 => "decided",
        3 => "lot",
        4 => "abandoned",
        _ => "unknown",
    }
}

fn event_status(event: &EventInfo, now: u64) -> &'static str {
    if event.cancelled {
        "cancelled"
    } else if event.finished {
        "finished"
    } else if event.drawn {
        "running"
    } else if event.entrants == event.size {
        "drawing"
    } else if now > event.deadline.to::<u64>() {
        "refunding"
    } else {
        "open"
    }
}

fn show(args: &ShowArgs) -> Result<ExitCode, CliError> {
    let id = args.event.id;
    let mut seat = open(&args.event.seat, true)?;
    let event = at(&mut seat).event(id).map_err(evm_error)?;
    if event.organiser == Address::ZERO {
        return Err(CliError::Refused(format!("there is no event {id}")));
    }
    let size = BracketSize::new(u32::from(event.size))
        .map_err(|e| CliError::Arg(format!("event {id}: {e}")))?;
    let now = chain_time(&mut seat)?;
    let unit = seat.unit(event.token).map_err(seat_error)?;
    let you = seat.player();
    let entrants = (0..event.entrants)
        .map(|i| at(&mut seat).entrant(id, i))
        .collect::<Result<Vec<_>, _>>()
        .map_err(evm_error)?;
    let mut matches = Vec::new();
    if event.drawn {
        for m in size.matches() {
            let info = at(&mut seat).match_info(id, m.get()).map_err(evm_error)?;
            let players = if info.status != 0 && info.white != Address::ZERO {
                Some((info.white, info.black))
            } else {
                // PlayersNotKnown until both matches below are decided.
                at(&mut seat).pairing(id, m.get()).ok()
            };
            matches.push(Shown {
                index: m.get(),
                round: size.round(m),
                info,
                players,
            });
        }
    }
    let next = matches.iter().find(|s| {
        matches!(s.info.status, 0 | 1 | 3)
            && s.players
                .is_some_and(|(w, b)| you != Address::ZERO && (w == you || b == you))
    });
    let tiers = u8::try_from(event.split.len()).unwrap_or(u8::MAX);
    let prizes = (0..tiers)
        .map(|t| {
            at(&mut seat)
                .prize_of(id, t)
                .map(|p| (t, size.tier_count(t), p))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(evm_error)?;
    let credit = if you == Address::ZERO {
        None
    } else {
        Some(at(&mut seat).credits(you, event.token).map_err(evm_error)?)
    };
    let status = event_status(&event, now);
    let match_json = |s: &Shown| {
        json!({
            "match": s.index,
            "round": s.round,
            "white": s.players.map(|p| p.0),
            "black": s.players.map(|p| p.1),
            "gameId": (!s.info.gameId.is_zero()).then(|| s.info.gameId.to_string()),
            "status": match_status(s.info.status),
            "winner": (s.info.winner != Address::ZERO).then_some(s.info.winner),
        })
    };
    if args.json {
        let rounds: Vec<Value> = (0..size.rounds())
            .map(|r| {
                Value::Array(
                    matches
                        .iter()
                        .filter(|s| s.round == r)
                        .map(match_json)
                        .collect(),
                )
            })
            .collect();
        let value = json!({
            "id": id.to_string(),
            "tournament": at(&mut seat).address(),
            "status": status,
            "organiser": event.organiser,
            "token": event.token,
            "fee": U256::from(event.fee).to_string(),
            "size": event.size,
            "entrants": entrants,
            "deadline": event.deadline.to::<u64>(),
            "initialTime": event.initialTime,
            "increment": event.increment,
            "firstMoveWindow": event.firstMoveWindow,
            "responseWindow": event.responseWindow,
            "abandonAfter": event.abandonAfter,
            "organiserFeeBps": event.feeBps,
            "split": event.split,
            "seed": event.drawn.then(|| event.seed.to_string()),
            "paid": event.paid.to_string(),
            "rounds": rounds,
            "prizes": prizes.iter().map(|(t, n, p)| json!({
                "tier": t, "players": n, "prize": p.to_string(),
            })).collect::<Vec<_>>(),
            "you": (you != Address::ZERO).then(|| json!({
                "address": you,
                "entered": entrants.contains(&you),
                "next": next.map(match_json),
                "credit": credit.map(|c| c.to_string()),
            })),
        });
        print_json(&value);
        return Ok(ExitCode::SUCCESS);
    }
    let games = if event.responseWindow == 0 {
        "per-move games".to_string()
    } else {
        format!("channel games (response window {} s)", event.responseWindow)
    };
    println!(
        "event {id} at {}: {status}, {} of {} players, fee {}",
        at(&mut seat).address(),
        event.entrants,
        event.size,
        unit.format(U256::from(event.fee))
    );
    println!(
        "  {games}, {} s + {} s per move, first-move window {} s; organiser {} (fee {} bps)",
        event.initialTime, event.increment, event.firstMoveWindow, event.organiser, event.feeBps
    );
    println!(
        "  registration closes at unix {}; split {:?} bps per player",
        event.deadline, event.split
    );
    println!("entrants:");
    for (i, player) in entrants.iter().enumerate() {
        let mark = if *player == you { " (you)" } else { "" };
        println!("  {i:>2} {player}{mark}");
    }
    if event.drawn {
        println!("bracket (seed {}):", event.seed);
        for r in 0..size.rounds() {
            println!("  round {}:", r + 1);
            for s in matches.iter().filter(|s| s.round == r) {
                println!("    {}", match_line(s));
            }
        }
    }
    match next {
        Some(s) => println!("your next match: {}", match_line(s)),
        None if you != Address::ZERO && entrants.contains(&you) && event.drawn => {
            println!("your next match: none (you are out, or the event is over)")
        }
        None => {}
    }
    println!("prizes:");
    for (tier, players, prize) in &prizes {
        println!(
            "  {} ({} player{}): {} each",
            place(*tier),
            players,
            if *players == 1 { "" } else { "s" },
            unit.format(*prize)
        );
    }
    if let Some(credit) = credit {
        println!("your credit: {}", unit.format(credit));
    }
    Ok(ExitCode::SUCCESS)
}

fn match_line(s: &Shown) -> String {
    let players = match s.players {
        Some((w, b)) => format!("{w} (white) v {b} (black)"),
        None => "players not known yet".to_string(),
    };
    let game = if s.info.gameId.is_zero() {
        String::new()
    } else {
        format!(", game {}", s.info.gameId)
    };
    let winner = if s.info.winner == Address::ZERO {
        String::new()
    } else {
        format!(", won by {}", s.info.winner)
    };
    format!(
        "match {}: {players}: {}{game}{winner}",
        s.index,
        match_status(s.info.status)
    )
}

/// A prize tier as a place: the winner, the finalist, semi-finalists, the last 8, ...
fn place(tier: u8) -> String {
    match tier {
        0 => "winner".to_string(),
        1 => "finalist".to_string(),
        2 => "semi-finalists".to_string(),
        t => format!("out in the last {}", 1u32 << t),
    }
}

/// `6000,2500,750` as basis points.
fn parse_split(text: &str) -> Result<Vec<u16>, CliError> {
    text.split(',')
        .map(|part| {
            part.trim().parse::<u16>().map_err(|_| {
                CliError::Arg(format!(
                    "--split {text:?}: {part:?} is not a number of basis points (0 .. 65535)"
                ))
            })
        })
        .collect()
}

/// `90s`, `10m`, `2h`, `1d` as seconds; `None` for anything else.
fn parse_span(text: &str) -> Option<u64> {
    let text = text.trim();
    let split = text.len().checked_sub(1)?;
    // Checked: a unit of several bytes (`2é`) is no boundary to split at, and is refused.
    let (number, unit) = text.split_at_checked(split)?;
    let scale = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        _ => return None,
    };
    number.parse::<u64>().ok()?.checked_mul(scale)
}

/// `--deadline`: a span from `now` or a unix time (after `now`, at most
/// [`MAX_REGISTRATION`] after it).
fn parse_when(text: &str, now: u64) -> Result<u64, CliError> {
    let at = match parse_span(text) {
        Some(span) => now.saturating_add(span),
        None => text.trim().parse::<u64>().map_err(|_| {
            CliError::Arg(format!(
                "--deadline {text:?} is not a span (`90m`, `2h`, `1d`) or a unix time"
            ))
        })?,
    };
    if at <= now {
        return Err(CliError::Arg(format!(
            "--deadline {text:?} is not in the future (the chain's time is {now})"
        )));
    }
    if at - now > MAX_REGISTRATION {
        return Err(CliError::Arg(format!(
            "--deadline {text:?} is more than 90 days off (the contract's longest registration)"
        )));
    }
    Ok(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_and_deadlines_parse() {
        assert_eq!(parse_span("2h"), Some(7_200));
        assert_eq!(parse_span("2é"), None);
        assert_eq!(parse_span("é"), None);
        assert_eq!(parse_span("90m"), Some(5_400));
        assert_eq!(parse_span("1d"), Some(86_400));
        assert_eq!(parse_span("h"), None);
        assert_eq!(parse_span("2x"), None);
        assert_eq!(parse_when("2h", 1_000).unwrap(), 8_200);
        assert_eq!(parse_when("5000", 1_000).unwrap(), 5_000);
        assert!(parse_when("500", 1_000).is_err());
        assert!(parse_when("soon", 1_000).is_err());
        assert_eq!(parse_when("90d", 1_000).unwrap(), 1_000 + MAX_REGISTRATION);
        let far = parse_when("91d", 1_000).unwrap_err().to_string();
        assert!(far.contains("90 days"), "{far}");
    }

    fn board(ply: u32, your_move: bool) -> Event {
        Event::Board(chessref_client::session::Board {
            fen: String::new(),
            last_uci: None,
            flipped: false,
            ply,
            turn: if ply.is_multiple_of(2) {
                Color::White
            } else {
                Color::Black
            },
            your_move,
            white: 600,
            black: 600,
        })
    }

    #[test]
    fn a_channel_session_is_fed_the_script_of_the_players_colour_once_per_turn() {
        let (commands, fed) = mpsc::channel();
        let mut feeder = Feeder {
            script: Script {
                white: vec!["Nf3".into()],
                black: vec!["Nf6".into(), "Ng8".into(), DRAW.into()],
            },
            colour: None,
            moved: Arc::new(AtomicBool::new(false)),
            asked: None,
            commands,
        };
        // Nothing before the session says which colour the player has.
        feeder.hear(&board(1, true));
        assert!(fed.try_recv().is_err());
        feeder.hear(&Event::Started {
            game: U256::from(7),
            colour: Color::Black,
            ply: 0,
            on_chain: false,
            opponent: Address::ZERO,
        });
        feeder.hear(&board(0, false));
        feeder.hear(&board(1, true));
        feeder.hear(&board(1, true));
        assert_eq!(fed.try_recv(), Ok(Command::Move("Nf6".into())));
        assert!(fed.try_recv().is_err(), "one command per position");
        feeder.hear(&board(3, true));
        assert_eq!(fed.try_recv(), Ok(Command::Move("Ng8".into())));
        // White offers a draw at ply 4: the script's next entry accepts it.
        feeder.hear(&Event::DrawOffer {
            by: chessref_channel::transcript::Side::White,
        });
        assert_eq!(fed.try_recv(), Ok(Command::Draw));
        feeder.hear(&board(7, true));
        assert_eq!(fed.try_recv(), Ok(Command::Resign), "past the list's end");
    }

    #[test]
    fn splits_parse_and_name_the_bad_part() {
        assert_eq!(
            parse_split("6000, 2500,750").unwrap(),
            vec![6000, 2500, 750]
        );
        let error = parse_split("6000,x").unwrap_err().to_string();
        assert!(error.contains("\"x\""), "{error}");
    }
}
