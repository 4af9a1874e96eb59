//! `chessref channel create|join|play`: a channel game between two terminals (or a
//! person and a bot) through the relay of `chessref serve` (docs/CHANNEL.md section 13).
//!
//! `create` and `join` open the game on-chain with the key sources of `chessref game`.
//! `play` runs the player's session ([`chessref_client::session`]: the relay, the chain,
//! registrations, the session key and the transcript on disk); this module only reads
//! its arguments, turns each line of standard input into a command (a move in SAN or UCI,
//! `draw` (offer, or accept an offer), `resign`, `register`, `claim` (the opponent's
//! timeout, on-chain), `show`, `quit`) and prints the session's events: a person's lines
//! and the board, or with `--json` one JSON object per event.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;

use alloy_primitives::U256;
use chessref_client::seat::unix_now;
use chessref_client::session::{
    Command, Event, Moved, Options, Refusal, Registrant, Registration, RelayTrouble, Session,
    SessionError, Via,
};
use chessref_evm::moment::{span, when};
use chessref_evm::{Chain, RpcChain, Sender};
use chessref_index::ratings::RatingSummary;
use clap::Args as ClapArgs;
use serde_json::{Value, json};

use super::CliError;
use super::game::{self, SeatArgs, TermsArgs};

/// The relay when none is named: `chessref serve`'s default address (`--addr
/// 127.0.0.1:8080`), where the README's recipe runs it.
pub(super) const DEFAULT_RELAY: &str = "http://127.0.0.1:8080";

/// Arguments of `chessref channel create`.
#[derive(ClapArgs)]
pub struct CreateArgs {
    #[command(flatten)]
    seat: SeatArgs,
    #[command(flatten)]
    terms: TermsArgs,
    /// The response window, seconds (at least 600): how long a registration stays open to
    /// a later pair or a proof (docs/CHANNEL.md section 10).
    #[arg(long, value_name = "SECONDS", default_value_t = 1_800)]
    window: u32,
    /// The relay the game will be played through (printed in the next step's command).
    #[arg(long, value_name = "URL", default_value = DEFAULT_RELAY)]
    relay: String,
}

/// Arguments of `chessref channel join`.
#[derive(ClapArgs)]
pub struct JoinArgs {
    /// The game id.
    #[arg(value_name = "ID")]
    id: U256,
    #[command(flatten)]
    seat: SeatArgs,
    /// The relay the game will be played through (printed in the next step's command).
    #[arg(long, value_name = "URL", default_value = DEFAULT_RELAY)]
    relay: String,
}

/// Arguments of `chessref channel play`.
#[derive(ClapArgs)]
pub struct PlayArgs {
    /// The game id.
    #[arg(value_name = "ID")]
    id: U256,
    #[command(flatten)]
    seat: SeatArgs,
    /// The relay: the base URL of a `chessref serve --index` (http:// or ws://).
    #[arg(long, value_name = "URL", default_value = DEFAULT_RELAY)]
    relay: String,
    /// Where the session key and the transcript are kept (default: ~/.chessref/channel).
    #[arg(long, value_name = "PATH")]
    dir: Option<PathBuf>,
    /// Print one JSON object per event (scripts and bots).
    #[arg(long)]
    json: bool,
    /// Seconds of the opponent's silence on its move before the client says so and offers
    /// `register`.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    patience: u64,
    /// Never register by itself. By default, when the opponent has not acknowledged the
    /// player's move by `min(sent + 10 s, its stamp + 30 s)`, the client registers it
    /// on-chain with a 2 gwei tip (docs/CHANNEL.md 9): without the opponent's receipt the
    /// chain takes the move only within 60 s of its stamp, after which the silent
    /// opponent could let the player's clock run out.
    #[arg(long)]
    no_auto_register: bool,
}

/// `chessref channel create`.
pub fn create(args: CreateArgs) -> Result<ExitCode, CliError> {
    let mut seat = game::sit(&args.seat)?;
    let window = args.window;
    let id = game::create(&mut seat, &args.terms, |seat, setup| {
        seat.create_channel(setup, window)
    })?;
    println!(
        "once joined, play it with: chessref channel play {id} --rpc {} --relay {}",
        args.seat.sender.rpc, args.relay
    );
    Ok(ExitCode::SUCCESS)
}

/// `chessref channel join`.
pub fn join(args: JoinArgs) -> Result<ExitCode, CliError> {
    let mut seat = game::sit(&args.seat)?;
    let game = seat.game(args.id).map_err(game::seat_error)?;
    if !game.is_channel() {
        return Err(CliError::Refused(format!(
            "game {} is played move by move on-chain: join it with chessref game join",
            args.id
        )));
    }
    game::join(&mut seat, args.id)?;
    println!(
        "play it with: chessref channel play {} --rpc {} --relay {}",
        args.id, args.seat.sender.rpc, args.relay
    );
    Ok(ExitCode::SUCCESS)
}

/// `chessref channel play`.
pub fn play(args: PlayArgs) -> Result<ExitCode, CliError> {
    let sender = args.seat.sender.sender()?;
    let Sender::Local(wallet) = &sender else {
        return Err(CliError::Arg(
            "a channel game signs messages here: give a key (CHESSREF_PRIVATE_KEY or --keystore), not --unlocked"
                .into(),
        ));
    };
    let wallet = wallet.clone();
    let mut chain = RpcChain::connect_as(&args.seat.sender.rpc, &sender)
        .map_err(|e| CliError::Arg(e.to_string()))?;
    let chain_id = chain.chain_id().map_err(|e| CliError::Arg(e.to_string()))?;
    let (referee, from_block) = args.seat.referee.locate(chain_id)?;
    let seat =
        chessref_client::seat::Seat::new(chain, referee, from_block).map_err(game::seat_error)?;
    let printer = std::rc::Rc::new(std::cell::RefCell::new(Printer::new(args.json)));
    let sink = {
        let printer = printer.clone();
        Box::new(move |event: Event| printer.borrow_mut().print(event))
    };
    let options = Options {
        id: args.id,
        relay: args.relay.clone(),
        dir: args.dir.clone(),
        patience: Duration::from_secs(args.patience),
        auto_register: !args.no_auto_register,
    };
    let mut session = Session::open(seat, &wallet, options, sink).map_err(session_error)?;
    // The opponent's rating, as `chessref game list` shows it; not worth failing for.
    let opponent = session.opponent();
    printer.borrow_mut().rating = game::ratings(session.seat())
        .ok()
        .and_then(|ratings| ratings.summary(opponent));
    let (commands, input) = mpsc::channel();
    commands_from_stdin(commands);
    session.run(&input).map_err(session_error)?;
    Ok(ExitCode::SUCCESS)
}

/// Each line of standard input, read on a thread of its own, sent as a session command.
pub(super) fn commands_from_stdin(commands: mpsc::Sender<Command>) {
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if let Some(command) = Command::parse(&line)
                && commands.send(command).is_err()
            {
                return;
            }
        }
    });
}

/// A session error as the CLI reports it (a refusal exits 1).
pub(super) fn session_error(error: SessionError) -> CliError {
    match error {
        SessionError::Seat(e) => game::seat_error(e),
        SessionError::Io { path, source } => CliError::Io { path, source },
        SessionError::Refused(message) => CliError::Refused(message),
        SessionError::Invalid(message) => CliError::Arg(message),
    }
}

/// Prints the session's events: a person's lines (and the board), or one JSON object each.
pub(super) struct Printer {
    json: bool,
    /// The opponent's Glicko-2 rating (`None`: no rated game, or the referee's games could
    /// not be read).
    rating: Option<RatingSummary>,
    /// Shown on a terminal while a transaction's receipt is awaited, until the next event.
    spinner: Option<indicatif::ProgressBar>,
}

impl Printer {
    /// A printer of a person's lines (`json` false) or of one JSON object per event, with
    /// no rating for the opponent.
    pub(super) fn new(json: bool) -> Printer {
        Printer {
            json,
            rating: None,
            spinner: None,
        }
    }

    fn event(&self, event: &str, data: Value, text: impl FnOnce() -> String) {
        let mut stdout = std::io::stdout().lock();
        if self.json {
            let mut object = json!({ "event": event });
            if let (Some(o), Value::Object(fields)) = (object.as_object_mut(), data) {
                o.extend(fields);
            }
            let _ = writeln!(stdout, "{object}");
        } else {
            let _ = writeln!(stdout, "{}", text());
        }
        let _ = stdout.flush();
    }

    /// Text only: nothing in `--json`.
    fn text(&self, text: impl FnOnce() -> String) {
        if !self.json {
            print!("{}", text());
            let _ = std::io::stdout().flush();
        }
    }

    pub(super) fn print(&mut self, event: Event) {
        if let Some(spinner) = self.spinner.take() {
            spinner.finish_and_clear();
        }
        match event {
            Event::Waiting { game } => {
                self.event("waiting", json!({"game": game.to_string()}), || {
                    format!("game {game}: waiting for an opponent to join (Ctrl-C to stop)")
                })
            }
            Event::Started {
                game,
                colour,
                ply,
                on_chain,
                opponent,
            } => {
                let rating = self.rating;
                self.event(
                    "started",
                    json!({"game": game.to_string(), "colour": colour.to_string(),
                           "ply": ply, "onChain": on_chain,
                           "opponent": opponent.to_string(), "opponentRating": rating}),
                    || {
                        let rating =
                            rating.map_or_else(|| "unrated".to_owned(), |r| r.to_string());
                        format!("game {game}: you play {colour} against {opponent} ({rating})")
                    },
                );
            }
            Event::Board(board) => self.text(|| {
                let mut text = game::grid(&board.fen, board.last_uci.as_deref(), board.flipped);
                text.push_str(&format!(
                    "ply {}, {} to move{}; clocks: white {}, black {}\n",
                    board.ply,
                    board.turn,
                    if board.your_move { " (your move)" } else { "" },
                    game::clock(board.white),
                    game::clock(board.black)
                ));
                text
            }),
            Event::Clocks { white, black } => {
                // Both clocks counting, on one line redrawn in place.
                if std::io::IsTerminal::is_terminal(&std::io::stdout()) {
                    self.text(|| {
                        format!(
                            "\r  clocks: white {}, black {}  ",
                            game::clock(white),
                            game::clock(black)
                        )
                    });
                }
            }
            Event::Relay { trouble, error } => {
                self.event("relay", json!({"error": error}), || match trouble {
                    RelayTrouble::Unreachable => format!("{error}; retrying"),
                    RelayTrouble::Lost => format!("relay connection lost ({error}); reconnecting"),
                    RelayTrouble::NotAFrame => {
                        format!("the relay sent something that is not a relay frame: {error}")
                    }
                })
            }
            Event::Refused {
                source,
                kind,
                code,
                reason,
            } => {
                let mut data = json!({"kind": kind, "code": code, "reason": reason});
                match source {
                    Refusal::ByRelay => {}
                    Refusal::FromRelay => data["from"] = json!("relay"),
                    Refusal::FromChain { ply } => {
                        data["from"] = json!("chain");
                        data["ply"] = json!(ply);
                    }
                }
                self.event("refused", data, || match source {
                    Refusal::ByRelay => {
                        format!("the relay refused a message of yours ({kind}): {reason}")
                    }
                    Refusal::FromRelay => format!(
                        "a message from the relay does not verify here and is ignored: {reason}"
                    ),
                    Refusal::FromChain { ply } => {
                        format!("the registered move of ply {ply} does not verify here: {reason}")
                    }
                });
            }
            Event::Move(moved) => self.moved(&moved),
            Event::DrawOffer { by } => {
                self.event("drawOffer", json!({"by": by.name()}), || {
                    format!("{} offers a draw: type `draw` to accept", by.name())
                })
            }
            Event::ResultSigned { by, result } => self.event(
                "resultSigned",
                json!({"by": by.name(), "result": result}),
                || format!("{} signed result {result}", by.name()),
            ),
            Event::Registration(registration) => self.registration(&registration),
            Event::Frozen {
                ply,
                window_end,
                to_move,
                your_move,
                deadline,
                now,
                fen,
            } => {
                let side = to_move.map_or("nobody", |s| s.name());
                self.event(
                    "frozen",
                    json!({"ply": ply, "windowEnd": window_end, "toMove": side, "yourMove": your_move,
                           "deadline": deadline, "now": now, "fen": fen}),
                    || {
                        let turn = if your_move {
                            "your move: type it and it is registered as the direct reply".to_owned()
                        } else {
                            format!("{side} answers by registering its reply")
                        };
                        format!(
                            "ply {ply} is registered on-chain and frozen until {}; {side} to move, its flag falls at {} by the wall clock: {turn}; play goes on on-chain after the window",
                            when(window_end, now),
                            when(deadline, now)
                        )
                    },
                );
            }
            Event::Live { ply } => self.event("live", json!({"ply": ply}), || {
                format!("the response window is over: the game goes on on-chain from ply {ply}; type moves as before")
            }),
            Event::LaterPairHeld {
                registered_ply,
                call,
                why,
            } => self.event(
                "note",
                json!({"message": "you hold a later pair than the registered one: type `register` to overtake it", "call": call}),
                || format!("you hold a later pair than the registered one (ply {registered_ply}): type `register` to send ChessChannel.{call} ({why})"),
            ),
            Event::ClaimAfterWindow => {
                let message = "type `claim` again once the response window is over to claim the draw";
                self.event("note", json!({"message": message}), || message.into());
            }
            Event::Overtake {
                registered_ply,
                ply,
                call,
                why,
                automatic,
                tip_wei,
            } => self.event(
                "overtake",
                json!({"registeredPly": registered_ply, "ply": ply, "call": call,
                       "why": why, "automatic": automatic, "tipWei": tip_wei.to_string()}),
                || format!(
                    "ply {registered_ply} is registered on-chain; you hold ply {ply}: sending ChessChannel.{call} now ({why})"
                ),
            ),
            Event::Registered {
                ply,
                tx,
                automatic,
                overtook,
                unacknowledged,
                block,
            } => {
                let mut data = json!({"ply": ply, "tx": tx.to_string(), "automatic": automatic, "block": block});
                if let Some(registered) = overtook {
                    data["overtake"] = json!(true);
                    data["registeredPly"] = json!(registered);
                }
                self.event("registered", data, || match overtook {
                    Some(registered) => format!("registered ply {ply} over ply {registered} (tx {tx}): it is frozen for the response window in its turn"),
                    None if automatic && unacknowledged => format!("your opponent did not confirm your move: it was registered on-chain (ply {ply}, tx {tx}) so your clock is safe; the game goes on on-chain once the response window is over; type moves as before"),
                    None => format!("registered ply {ply}: the game goes on on-chain once the response window is over; type moves as before"),
                });
            }
            Event::Announced {
                ply,
                tx,
                registered_ply,
            } => {
                let mut data = json!({"ply": ply, "tx": tx.to_string()});
                if let Some(registered) = registered_ply {
                    data["registeredPly"] = json!(registered);
                }
                self.event("announced", data, || format!("another registration landed before yours: the chain recorded when it showed ply {ply} (tx {tx}); it is registered again against the new one"));
            }
            Event::Sending {
                operation,
                summary,
                from,
                gas,
                gas_price,
                fee,
            } => {
                if !self.json {
                    self.spinner = Some(game::sending(
                        &summary, from, gas, gas_price, fee, operation,
                    ));
                }
            }
            Event::Sent(sent) => {
                if self.json {
                    let tx = sent.receipt.tx_hash.unwrap_or_default();
                    self.event(
                        "sent",
                        json!({"operation": sent.operation, "tx": tx.to_string(),
                               "gasUsed": sent.receipt.gas_used}),
                        String::new,
                    );
                } else {
                    game::print_sent(&sent);
                }
            }
            Event::Error { message, revert } => {
                // The contract's error beside the words, as `--json` commands print a revert.
                let mut data = json!({"message": message});
                if let Some(revert) = &revert {
                    data["revert"] = revert.to_json();
                }
                self.event("error", data, || message.clone())
            }
            Event::Position(view) => {
                if self.json {
                    let data = serde_json::to_value(&view).unwrap_or(Value::Null);
                    self.event("position", data, String::new);
                } else {
                    let _ = game::show(&view, false);
                }
            }
            Event::Silent {
                since,
                ply,
                register_by,
                auto_register_at,
                first_move,
            } => self.event(
                "silent",
                json!({"since": since, "ply": ply, "registerBy": register_by,
                       "autoRegisterAt": auto_register_at, "firstMove": first_move}),
                || match (register_by, auto_register_at) {
                    // Nothing runs on the waiting side's clock before the first move.
                    _ if first_move => format!(
                        "white has not made its first move for {since} s: nothing is lost while you wait (no clock runs before it). If it never comes, `register` puts the game on-chain from the start, and once the response window and white's first-move window are over `claim` aborts it: both stakes go back"
                    ),
                    (Some(by), Some(at)) => format!(
                        "the opponent has not answered for {}, and never acknowledged your move: this client registers it itself at {} (10 s after sending it, at most 30 s after its stamp), or type `register` now; it must land before {} (60 s after its stamp)",
                        span(since),
                        when(at, unix_now()),
                        when(by, unix_now())
                    ),
                    (Some(by), None) => format!(
                        "the opponent has not answered for {}, and never acknowledged your move: type `register` before {} (60 s after its stamp) to put the game on-chain",
                        span(since),
                        when(by, unix_now())
                    ),
                    (None, _) => format!(
                        "the opponent has not answered for {}: type `register` to put the game on-chain from your acknowledged move (its clock runs from its receipt)",
                        span(since)
                    ),
                },
            ),
            Event::AutoRegister {
                ply,
                stamp,
                sent_at,
                at,
                register_by,
                tip_wei,
            } => self.event(
                "autoRegister",
                json!({"ply": ply, "stamp": stamp, "sentAt": sent_at, "at": at,
                       "registerBy": register_by, "tipWei": tip_wei.to_string()}),
                || format!(
                    "your opponent has not acknowledged your move (ply {ply}) since {}: registering it on-chain now, by itself, so that your clock is safe (it must land within 60 s of its stamp, {})",
                    when(sent_at, unix_now()),
                    when(stamp, unix_now())
                ),
            ),
            Event::Ended {
                result,
                reason,
                call,
                why,
                you_settle,
            } => self.event(
                "ended",
                json!({"result": result, "reason": reason, "call": call, "youSettle": you_settle}),
                || format!("the game ended: result {result}, reason {reason} ({why})"),
            ),
            Event::Settled { tx, gas_used } => self.event(
                "settled",
                json!({"tx": tx.to_string(), "gasUsed": gas_used}),
                || format!("settled on-chain: tx {tx}, {gas_used} gas"),
            ),
        }
    }

    /// A registration the chain shows: who sent it, which ply (over which), and when its
    /// response window ends.
    fn registration(&self, r: &Registration) {
        let sender = r.sender.map(|a| a.to_string());
        self.event(
            "registration",
            json!({"ply": r.ply, "by": r.by.name(), "sender": sender, "overtook": r.overtook,
                   "windowEnd": r.window_end, "open": r.open, "tx": r.tx.to_string(),
                   "at": r.at}),
            || {
                let sender = sender.as_deref().unwrap_or("an unknown sender");
                let who = match r.by {
                    Registrant::You => format!("you ({sender}, from another client)"),
                    Registrant::Opponent => format!("your opponent ({sender})"),
                    Registrant::Other => format!("a watchtower ({sender})"),
                };
                let what = match r.overtook {
                    Some(before) => format!("overtook ply {before} with ply {}", r.ply),
                    None => format!("registered ply {}", r.ply),
                };
                let window = if r.open {
                    format!(
                        "its response window ends at {}",
                        when(r.window_end, unix_now())
                    )
                } else {
                    format!(
                        "its response window ended at {}",
                        when(r.window_end, unix_now())
                    )
                };
                format!("{who} {what} on-chain (tx {}): {window}", r.tx)
            },
        );
    }

    /// A move: the player's own (signed here), or one that came in through the relay or
    /// from the chain.
    fn moved(&self, moved: &Moved) {
        let from = match moved.via {
            Via::Signed | Via::SignedToRegister => "you",
            Via::Relay => "relay",
            Via::Chain => "chain",
        };
        let ply = moved.ply;
        let san = &moved.san;
        self.event(
            "move",
            json!({"ply": ply, "by": if moved.mine { "you" } else { "opponent" },
                   "colour": moved.by.name(), "san": san, "uci": moved.uci,
                   "fen": moved.fen, "whiteTime": moved.white_time,
                   "blackTime": moved.black_time, "timestamp": moved.timestamp,
                   "yourMove": moved.your_move, "from": from}),
            || match moved.via {
                Via::Signed => format!("{ply} {san}: signed and sent"),
                Via::SignedToRegister => format!("{ply} {san}: registering it as the direct reply"),
                Via::Relay | Via::Chain => format!(
                    "{}{} {san}{}",
                    ply.div_ceil(2),
                    if ply % 2 == 1 { "." } else { "..." },
                    if moved.via == Via::Chain {
                        " (from the chain)"
                    } else {
                        ""
                    }
                ),
            },
        );
    }
}
