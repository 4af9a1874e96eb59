//! `chessref channel create|join|play`: a channel game between two terminals (or a
//! person and a bot) through the relay of `chessref serve` (docs/CHANNEL.md section 13).
//!
//! `create` and `join` open the game on-chain with the key sources of `chessref game`.
//! `play` makes the player's session key on first use (a file only its user can read,
//! never sent; the wallet signs its delegation once), then plays through the relay:
//! moves typed in SAN or UCI are checked and signed here (`chessref_channel::
//! seat`, which also says what an honest client answers), every incoming message is checked by the mirror before it counts,
//! each opponent move is acknowledged at once, and the transcript is kept on disk as it
//! grows (`transcript.json`, what `chessref channel verify|settle|dispute` read). When
//! the opponent has not acknowledged the player's move by `min(sent + 10 s, its stamp +
//! 30 s)` ([`chessref_channel::auto_register_at`]), the client registers that move
//! itself, with a 2 gwei tip, and says so (`--no-auto-register` turns that off); when
//! the opponent goes silent it says so with the deadline and offers `register`.
//!
//! Every second the client looks at the chain for the game's latest registration, its
//! own or anyone's. While one is frozen it signs nothing for the relay: it takes the
//! registered moves in (held from when the chain showed them, `ChannelSeat::
//! receive_shown`), says whose move it is, by when by the wall clock and when the window
//! ends, registers at once any later pair it holds (the watchtower's rule,
//! `chessref_client::watchtower::answer`), and registers a move typed on the player's turn
//! as the direct reply. Once the window is over the game goes on on-chain in the same
//! session, each move a transaction of `chessref game`'s seat. Commands on standard input,
//! one per line: a move, `draw` (offer, or accept an offer), `resign`, `register`, `claim`
//! (the opponent's timeout, on-chain), `show`, `quit`. `--json` prints one JSON object per
//! event instead of the board.

use std::io::{BufRead, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use alloy::signers::local::PrivateKeySigner;
use alloy_primitives::{B256, U256};
use chessref_channel::auth::SignedDelegation;
use chessref_channel::seat::{ChannelSeat, Received};
use chessref_channel::transcript::{DelegationEntry, Side};
use chessref_channel::{AUTO_REGISTER_TIP, Frame, NoPins, RelayFrame, Transcript};
use chessref_client::seat::Seat;
use chessref_client::shown::{self, Frozen};
use chessref_client::watchtower::{self, Answer};
use chessref_evm::{Chain, RpcChain, Sender};
use clap::Args as ClapArgs;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

use super::CliError;
use super::channel::system_now as now;

/// How many seconds a registration whose receipt the chain's time has not reached yet is
/// retried before it is reported.
const RECEIPT_RETRIES: u32 = 5;
use super::game::{self, SeatArgs, TermsArgs};

/// Seconds a session key's delegation covers beyond the clocks: [`chessref_channel::ChannelGame::key_expiry`] for this many plies.
const KEY_PLIES: u32 = 400;

/// The relay when none is named: `chessref serve`'s default address (`--addr
/// 127.0.0.1:8080`), where the README's recipe runs it.
const DEFAULT_RELAY: &str = "http://127.0.0.1:8080";

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

/// How events are shown: a person's lines, or one JSON object each.
struct Out {
    json: bool,
}

impl Out {
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
}

/// Where `player`'s files of game `id` are kept: named by chain, referee, game and player,
/// so that both players on one machine (one home, no `--dir`: the README's two terminals)
/// never share a session key or a transcript.
fn game_dir(
    args: &PlayArgs,
    chain_id: u64,
    referee: alloy_primitives::Address,
    player: alloy_primitives::Address,
) -> PathBuf {
    let base = args.dir.clone().unwrap_or_else(|| {
        std::env::var_os("HOME")
            .map_or_else(|| PathBuf::from("."), PathBuf::from)
            .join(".chessref")
            .join("channel")
    });
    base.join(format!("{chain_id}-{referee}-{}-{player}", args.id))
}

/// Whose files a game folder holds (`game.json`): a fresh chain (a new anvil) repeats the
/// CREATE2 addresses and the game ids, so the game is known by its creation's block hash.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct FolderOwner {
    chain_id: u64,
    referee: alloy_primitives::Address,
    game_id: U256,
    player: alloy_primitives::Address,
    created_in_block: B256,
}

/// Claims `dir` for `owner`: writes its `game.json` the first time, and refuses a folder
/// that holds another game's files (another chain, game or player).
fn claim_folder(dir: &Path, owner: &FolderOwner) -> Result<(), CliError> {
    let file = dir.join("game.json");
    if !file.is_file() {
        let text = serde_json::to_string_pretty(owner).map_err(|e| CliError::Arg(e.to_string()))?;
        return write_private(&file, &text);
    }
    let text = std::fs::read_to_string(&file).map_err(|source| CliError::Io {
        path: file.display().to_string(),
        source,
    })?;
    let found: FolderOwner = serde_json::from_str(&text)
        .map_err(|e| CliError::Arg(format!("{}: {e}", file.display())))?;
    if found != *owner {
        return Err(CliError::Refused(format!(
            "{} holds the files of another game: game {} of chain {} created in block {} for {}, not game {} of chain {} created in block {} for {}; move the folder away or pass --dir",
            dir.display(),
            found.game_id,
            found.chain_id,
            found.created_in_block,
            found.player,
            owner.game_id,
            owner.chain_id,
            owner.created_in_block,
            owner.player
        )));
    }
    Ok(())
}

/// Writes `text` to `path` atomically, readable by its owner only.
fn write_private(path: &Path, text: &str) -> Result<(), CliError> {
    let io = |source| CliError::Io {
        path: path.display().to_string(),
        source,
    };
    let tmp = path.with_extension("tmp");
    {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(&tmp).map_err(io)?;
        file.write_all(text.as_bytes()).map_err(io)?;
        file.sync_all().map_err(io)?;
    }
    std::fs::rename(&tmp, path).map_err(io)
}

/// The session key and its delegation, made (and the delegation signed by `wallet`) on
/// first use and kept in `dir`.
fn session(
    dir: &Path,
    wallet: &PrivateKeySigner,
    seat_game: &chessref_channel::ChannelGame,
    domain: &chessref_channel::ChannelDomain,
) -> Result<(PrivateKeySigner, SignedDelegation), CliError> {
    let key_file = dir.join("session.key");
    let delegation_file = dir.join("delegation.json");
    if key_file.is_file() && delegation_file.is_file() {
        let read = |path: &Path| {
            std::fs::read_to_string(path).map_err(|source| CliError::Io {
                path: path.display().to_string(),
                source,
            })
        };
        let key: PrivateKeySigner = read(&key_file)?.trim().parse().map_err(|e| {
            CliError::Arg(format!("{}: not a private key: {e}", key_file.display()))
        })?;
        let entry: DelegationEntry = serde_json::from_str(&read(&delegation_file)?)
            .map_err(|e| CliError::Arg(format!("{}: {e}", delegation_file.display())))?;
        return Ok((
            key,
            SignedDelegation {
                delegation: entry.delegation(),
                signature: entry.signature,
            },
        ));
    }
    let key = PrivateKeySigner::random();
    let expires = seat_game.key_expiry(now(), KEY_PLIES);
    let signed = chessref_channel::signer::delegate(
        wallet,
        domain,
        seat_game.game_id,
        key.address(),
        1,
        u32::MAX,
        expires,
    )
    .map_err(|e| CliError::Arg(e.to_string()))?;
    write_private(
        &key_file,
        &alloy_primitives::hex::encode_prefixed(key.to_bytes()),
    )?;
    let colour = seat_game
        .colour_of(wallet.address())
        .ok_or_else(|| CliError::Refused(format!("{} is not a player", wallet.address())))?;
    let entry = DelegationEntry::of(Side::of(colour), &signed);
    write_private(
        &delegation_file,
        &serde_json::to_string_pretty(&entry).expect("a delegation serialises"),
    )?;
    Ok((key, signed))
}

type Socket = WebSocket<MaybeTlsStream<TcpStream>>;

/// Connects to the relay's channel of game `id`; the error says why not, in words.
fn connect(relay: &str, id: U256) -> Result<Socket, String> {
    let base = relay.trim_end_matches('/');
    let base = if let Some(rest) = base.strip_prefix("http://") {
        format!("ws://{rest}")
    } else if let Some(rest) = base.strip_prefix("https://") {
        format!("wss://{rest}")
    } else {
        base.to_owned()
    };
    let url = format!("{base}/v1/games/{id}/channel");
    let (mut socket, _) = tungstenite::connect(&url).map_err(|e| match e {
        // The relay answers 404 for a game its index has not seen joined yet (it learns the
        // game from the chain a block or two after `channel join`): not a lost relay.
        tungstenite::Error::Http(response) if response.status() == 404 => {
            format!("the relay has not seen game {id}'s join yet ({url})")
        }
        e => format!("relay unreachable ({url}: {e})"),
    })?;
    if let MaybeTlsStream::Plain(stream) = socket.get_mut() {
        stream
            .set_read_timeout(Some(Duration::from_millis(50)))
            .map_err(|e| format!("relay unreachable ({url}: {e})"))?;
    }
    Ok(socket)
}

/// A line of standard input, or its end.
enum Input {
    Line(String),
    End,
}

/// The session of `chessref channel play`.
struct Session {
    out: Out,
    id: U256,
    seat: Seat,
    channel: ChannelSeat,
    transcript_file: PathBuf,
    relay: String,
    socket: Option<Socket>,
    /// The frames the relay holds (seen from it), to send what it lacks after a reconnection.
    relayed: Vec<Frame>,
    /// The relay's latest message at connection, until the backlog is read.
    syncing: Option<u64>,
    /// When the opponent was last heard from, and whether its silence was reported.
    heard: Instant,
    warned: bool,
    /// Off-chain, frozen by a registration, or live on-chain.
    phase: Phase,
    /// `(registeredPly, windowEnd)` of the latest registration seen (to tell a new one).
    registration: Option<(u32, u64)>,
    /// The frozen registration answered (its ply and window end) and the ply the player
    /// held then: each is answered once (a failure is reported).
    answered: Option<(u32, u64, u32)>,
    shown_chain: Option<String>,
    patience: Duration,
    /// Whether the player's own unacknowledged move is registered by itself (CHANNEL.md 9).
    auto_register: bool,
    /// When the player's latest move was sent (the session's start for a move sent
    /// before a restart, which is sent again then).
    sent_at: u64,
    /// The ply whose automatic registration was tried (once: a failure is reported).
    auto_tried: Option<u32>,
    settled: bool,
    /// The opponent.
    opponent: alloy_primitives::Address,
    /// The opponent's Glicko-2 rating when the session started (`None`: no rated game,
    /// or the referee's games could not be read).
    opponent_rating: Option<chessref_index::ratings::RatingSummary>,
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
    let mut seat = Seat::new(chain, referee, from_block).map_err(game::seat_error)?;
    let out = Out { json: args.json };
    let mut log = seat.game(args.id).map_err(game::seat_error)?;
    // Started before anyone joined (a creator starts the client and waits, as `game show
    // --watch` does): wait for the join, saying so once.
    if log.is_channel() && log.phase == chessref_client::game_log::Phase::Open {
        out.event("waiting", json!({"game": args.id.to_string()}), || {
            format!(
                "game {}: waiting for an opponent to join (Ctrl-C to stop)",
                args.id
            )
        });
        while log.phase == chessref_client::game_log::Phase::Open {
            std::thread::sleep(Duration::from_secs(1));
            log = seat.game(args.id).map_err(game::seat_error)?;
        }
    }
    let terms = log.channel_game().ok_or_else(|| {
        CliError::Refused(format!(
            "game {} is not a joined channel game ({})",
            args.id,
            log.phase.name()
        ))
    })?;
    let domain = seat
        .referee()
        .channel_domain()
        .map_err(|e| CliError::Arg(e.to_string()))?;
    let dir = game_dir(&args, chain_id, referee, wallet.address());
    std::fs::create_dir_all(&dir).map_err(|source| CliError::Io {
        path: dir.display().to_string(),
        source,
    })?;
    claim_folder(
        &dir,
        &FolderOwner {
            chain_id,
            referee,
            game_id: args.id,
            player: wallet.address(),
            created_in_block: log.created.block_hash,
        },
    )?;
    let (key, delegation) = session(&dir, &wallet, &terms, &domain)?;
    let mut channel = ChannelSeat::new(domain, terms, wallet.address(), Box::new(key), delegation)
        .map_err(|e| CliError::Refused(e.to_string()))?;
    let transcript_file = dir.join("transcript.json");
    if transcript_file.is_file() {
        let text = std::fs::read_to_string(&transcript_file).map_err(|source| CliError::Io {
            path: transcript_file.display().to_string(),
            source,
        })?;
        let stored = Transcript::from_json(&text)
            .map_err(|e| CliError::Arg(format!("{}: {e}", transcript_file.display())))?;
        channel
            .restore(&stored, now())
            .map_err(|e| CliError::Arg(format!("{}: {e}", transcript_file.display())))?;
    }
    // Refined from the chain before the session starts (the window may still run).
    let phase = if log.registrations.is_empty() {
        Phase::OffChain
    } else {
        Phase::Live
    };
    // The opponent's rating, as `chessref game list` shows it; not worth failing for.
    let opponent = match channel.colour() {
        chessref_core::Color::White => channel.game().black,
        chessref_core::Color::Black => channel.game().white,
    };
    let opponent_rating = game::ratings(&mut seat)
        .ok()
        .and_then(|ratings| ratings.summary(opponent));
    let mut session = Session {
        out,
        id: args.id,
        seat,
        channel,
        transcript_file,
        relay: args.relay.clone(),
        socket: None,
        relayed: Vec::new(),
        syncing: None,
        heard: Instant::now(),
        warned: false,
        phase,
        registration: None,
        answered: None,
        shown_chain: None,
        patience: Duration::from_secs(args.patience),
        auto_register: !args.no_auto_register,
        sent_at: now(),
        auto_tried: None,
        settled: false,
        opponent,
        opponent_rating,
    };
    session.run()
}

/// Where the game is played.
enum Phase {
    /// Off-chain, through the relay.
    OffChain,
    /// A registration is frozen: moves are registered, not relayed.
    Frozen(Box<Frozen>),
    /// On-chain play is live: moves are the referee's `move`.
    Live,
}

impl Session {
    /// Whether the game left the relay (a registration, frozen or live).
    fn on_chain(&self) -> bool {
        !matches!(self.phase, Phase::OffChain)
    }

    fn run(&mut self) -> Result<ExitCode, CliError> {
        let (lines, input) = mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                if lines.send(Input::Line(line)).is_err() {
                    return;
                }
            }
            let _ = lines.send(Input::End);
        });
        let colour = self.channel.colour();
        let (opponent, rating) = (self.opponent, self.opponent_rating);
        self.out.event(
            "started",
            json!({"game": self.id.to_string(), "colour": colour.to_string(),
                   "ply": self.channel.last().ply, "onChain": self.on_chain(),
                   "opponent": opponent.to_string(), "opponentRating": rating}),
            || {
                let rating = rating.map_or_else(|| "unrated".to_owned(), |r| r.to_string());
                format!(
                    "game {}: you play {colour} against {opponent} ({rating})",
                    self.id
                )
            },
        );
        self.show();
        if !matches!(self.phase, Phase::OffChain) {
            self.follow_chain()?;
        }
        let mut retry = Instant::now();
        let mut tick = Instant::now();
        loop {
            if self.socket.is_none()
                && matches!(self.phase, Phase::OffChain)
                && Instant::now() >= retry
            {
                match connect(&self.relay, self.id) {
                    Ok(socket) => {
                        self.socket = Some(socket);
                        self.relayed.clear();
                    }
                    Err(e) => {
                        self.out
                            .event("relay", json!({"error": e}), || format!("{e}; retrying"));
                        retry = Instant::now() + Duration::from_secs(2);
                    }
                }
            }
            self.read_relay()?;
            match input.recv_timeout(Duration::from_millis(20)) {
                Ok(Input::Line(line)) => {
                    if !self.command(line.trim())? {
                        return Ok(ExitCode::SUCCESS);
                    }
                }
                Ok(Input::End) | Err(mpsc::RecvTimeoutError::Timeout) => {}
                // Standard input has ended (a bot closed it): the channel answers at once from
                // now on, so wait here as the timeout would (issue 29: it spun a core).
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    std::thread::sleep(Duration::from_millis(20))
                }
            }
            if tick.elapsed() >= Duration::from_secs(1) {
                tick = Instant::now();
                self.every_second()?;
            }
            if self.finished() {
                return Ok(ExitCode::SUCCESS);
            }
        }
    }

    /// Whether there is nothing left to do: ended off-chain and settled (or settling is
    /// the other's), or ended on-chain.
    fn finished(&self) -> bool {
        self.settled
    }

    fn save(&self) -> Result<(), CliError> {
        let text = serde_json::to_string_pretty(self.channel.transcript())
            .expect("a transcript serialises");
        write_private(&self.transcript_file, &text)
    }

    fn send(&mut self, frames: Vec<Frame>) -> Result<(), CliError> {
        self.save()?;
        let Some(socket) = self.socket.as_mut() else {
            return Ok(());
        };
        for frame in frames {
            let text = serde_json::to_string(&frame).expect("frames serialise");
            if let Err(e) = socket.send(Message::text(text)) {
                self.out
                    .event("relay", json!({"error": e.to_string()}), || {
                        format!("relay connection lost ({e}); reconnecting")
                    });
                self.socket = None;
                return Ok(());
            }
        }
        Ok(())
    }

    /// Reads every frame the relay has for us now.
    fn read_relay(&mut self) -> Result<(), CliError> {
        loop {
            let Some(socket) = self.socket.as_mut() else {
                return Ok(());
            };
            let message = match socket.read() {
                Ok(message) => message,
                // Nothing yet; or a read cut short by a signal (SIGCONT after Ctrl-Z, `fg`,
                // fails a socket read with a timeout with EINTR on Linux): not a lost relay.
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock
                            | std::io::ErrorKind::TimedOut
                            | std::io::ErrorKind::Interrupted
                    ) =>
                {
                    let _ = socket.flush();
                    return Ok(());
                }
                Err(e) => {
                    self.out
                        .event("relay", json!({"error": e.to_string()}), || {
                            format!("relay connection lost ({e}); reconnecting")
                        });
                    self.socket = None;
                    return Ok(());
                }
            };
            let Message::Text(text) = message else {
                continue;
            };
            let frame: RelayFrame = match serde_json::from_str(text.as_str()) {
                Ok(frame) => frame,
                Err(e) => {
                    self.out
                        .event("relay", json!({"error": e.to_string()}), || {
                            format!("the relay sent something that is not a relay frame: {e}")
                        });
                    continue;
                }
            };
            self.relay_frame(frame)?;
        }
    }

    fn relay_frame(&mut self, frame: RelayFrame) -> Result<(), CliError> {
        match frame {
            RelayFrame::Welcome { latest, game, .. } => {
                if game != *self.channel.game() {
                    return Err(CliError::Arg(format!(
                        "the relay names other terms for game {} than the chain",
                        self.id
                    )));
                }
                self.syncing = Some(latest);
                if latest == 0 {
                    self.synced()?;
                }
            }
            RelayFrame::Message { seq, message, .. } => {
                self.relayed.push(message.clone());
                self.incoming(message)?;
                if self.syncing == Some(seq) {
                    self.synced()?;
                }
            }
            RelayFrame::Duplicate { .. } => {}
            RelayFrame::Refused { kind, code, reason } => {
                self.out.event(
                    "refused",
                    json!({"kind": kind, "code": code, "reason": reason}),
                    || format!("the relay refused a message of yours ({kind}): {reason}"),
                );
            }
        }
        Ok(())
    }

    /// The backlog is read: send what the relay lacks (after a reconnection, or a
    /// restart), our delegation first, and what we owe.
    fn synced(&mut self) -> Result<(), CliError> {
        self.syncing = None;
        let missing = self
            .channel
            .resync(&self.relayed, now())
            .map_err(|e| CliError::Arg(e.to_string()))?;
        self.send(missing)
    }

    /// What the seat answers to `received` (a receipt, an agreement), sent.
    fn answer(&mut self, received: &Received) -> Result<(), CliError> {
        let frames = self
            .channel
            .answer(received, now())
            .map_err(|e| CliError::Arg(e.to_string()))?;
        self.send(frames)
    }

    /// A message from the relay: checked by the mirror, then answered.
    fn incoming(&mut self, frame: Frame) -> Result<(), CliError> {
        let received = match self.channel.receive(frame, now()) {
            Ok(received) => received,
            Err(refusal) => {
                self.out.event(
                    "refused",
                    json!({"kind": refusal.kind(), "code": refusal.code(), "reason": refusal.to_string(), "from": "relay"}),
                    || format!("a message from the relay does not verify here and is ignored: {refusal}"),
                );
                return Ok(());
            }
        };
        self.save()?;
        let me = Side::of(self.channel.colour());
        match received {
            Received::Known | Received::Delegation(_) | Received::Receipt(_) => {}
            Received::Move { by, .. } => {
                if by != me {
                    self.heard = Instant::now();
                    self.warned = false;
                }
                self.moved(&received, false);
                self.answer(&received)?;
                if by != me {
                    self.show();
                }
            }
            Received::DrawOffer(by) if by != me => {
                self.heard = Instant::now();
                self.out.event("drawOffer", json!({"by": by.name()}), || {
                    format!("{} offers a draw: type `draw` to accept", by.name())
                });
            }
            Received::DrawOffer(_) => {}
            Received::ResultHalf(by, result) if by != me => {
                self.heard = Instant::now();
                self.out.event(
                    "resultSigned",
                    json!({"by": by.name(), "result": result}),
                    || format!("{} signed result {result}", by.name()),
                );
                self.answer(&received)?;
                if self.channel.ended().is_some() {
                    self.ended()?;
                }
            }
            Received::ResultHalf(..) => {}
            Received::Ended => self.ended()?,
        }
        Ok(())
    }

    /// Says that the player's own move, the latest, is signed (a `move` event `"from":
    /// "you"`, with its signed stamp and times, so a bot learns its move went through);
    /// `text(ply, san)` for a person.
    fn own_move(&self, text: impl FnOnce(u32, &str) -> String) {
        let last = self.channel.last();
        let (san, uci) = self.channel.last_move().unwrap_or_default();
        self.out.event(
            "move",
            json!({"ply": last.ply, "by": Side::of(self.channel.colour()).name(),
                   "san": san, "uci": uci, "fen": self.channel.position().fen(),
                   "whiteTime": last.whiteTime, "blackTime": last.blackTime,
                   "timestamp": last.timestamp, "yourMove": false, "from": "you"}),
            || text(last.ply, &san),
        );
    }

    /// Says that `received`, a move, came in (from the chain if `from_chain`: a registered
    /// or announced move, held from when the chain showed it).
    fn moved(&self, received: &Received, from_chain: bool) {
        let Received::Move { ply, by, san, uci } = received else {
            return;
        };
        let last = self.channel.last();
        self.out.event(
            "move",
            json!({"ply": ply, "by": by.name(), "san": san, "uci": uci,
                   "fen": self.channel.position().fen(),
                   "whiteTime": last.whiteTime, "blackTime": last.blackTime,
                   "timestamp": last.timestamp, "yourMove": self.channel.to_move(),
                   "from": if from_chain { "chain" } else { "relay" }}),
            || {
                format!(
                    "{}{} {san}{}",
                    ply.div_ceil(2),
                    if ply % 2 == 1 { "." } else { "..." },
                    if from_chain { " (from the chain)" } else { "" }
                )
            },
        );
    }

    /// In a decided position, sign the result the board gives (once).
    fn agree_to_the_board(&mut self) -> Result<(), CliError> {
        let frames = self
            .channel
            .agree_to_the_board(now())
            .map_err(|e| CliError::Arg(e.to_string()))?;
        self.send(frames)
    }

    /// The game ended off-chain: the winner (white on a draw) settles it in one
    /// transaction.
    fn ended(&mut self) -> Result<(), CliError> {
        let report = self
            .channel
            .transcript()
            .verify(&NoPins, now())
            .map_err(|e| CliError::Arg(e.to_string()))?;
        let settlement = report.settlement;
        let (result, reason) = settlement.ends.unwrap_or((0, 0));
        let mine = match result {
            1 => self.channel.colour() == chessref_core::Color::White,
            2 => self.channel.colour() == chessref_core::Color::Black,
            _ => self.channel.colour() == chessref_core::Color::White,
        };
        self.out.event(
            "ended",
            json!({"result": result, "reason": reason, "call": settlement.call, "youSettle": mine}),
            || {
                format!(
                    "the game ended: result {result}, reason {reason} ({})",
                    settlement.why
                )
            },
        );
        if !mine {
            self.settled = true;
            return Ok(());
        }
        let prepared = self
            .seat
            .prepare_channel(&settlement)
            .map_err(game::seat_error)?;
        let sent = self.seat.send(prepared).map_err(game::seat_error)?;
        let tx = sent.receipt.tx_hash.unwrap_or_default();
        self.out.event(
            "settled",
            json!({"tx": tx.to_string(), "gasUsed": sent.receipt.gas_used}),
            || format!("settled on-chain: tx {tx}, {} gas", sent.receipt.gas_used),
        );
        self.settled = true;
        Ok(())
    }

    /// One typed command; `false` to quit. The chain is looked at first: a registration
    /// that landed, or a window that ended, since the last second changes where it goes.
    fn command(&mut self, line: &str) -> Result<bool, CliError> {
        if !matches!(line, "" | "quit" | "exit" | "show") && !matches!(self.phase, Phase::Live) {
            self.follow_chain()?;
        }
        let t = now();
        let outcome: Result<Vec<Frame>, String> = match line {
            "" => return Ok(true),
            "quit" | "exit" => return Ok(false),
            "show" => {
                self.show();
                return Ok(true);
            }
            "register" if matches!(self.phase, Phase::Frozen(_)) => {
                if !self.answer_frozen(true)? {
                    self.error("nothing to register: the registered pair is the latest you hold");
                }
                return Ok(true);
            }
            "register" => {
                self.register()?;
                return Ok(true);
            }
            // Off-chain, a draw by the fifty-move rule or threefold repetition is claimed
            // from a registered position (CHANNEL.md 7.5): register first, claim after the
            // window. On-chain: the draw if one is claimable, else the opponent's timeout.
            "claim" if matches!(self.phase, Phase::OffChain) => {
                let position = self.channel.position();
                if position.halfmove_clock() >= 100 || self.threefold() {
                    self.register()?;
                    self.out.event(
                        "note",
                        json!({"message": "type `claim` again once the response window is over to claim the draw"}),
                        || "type `claim` again once the response window is over to claim the draw".into(),
                    );
                } else {
                    self.error("no draw to claim here: off-chain, `register` puts the game on-chain, where a timeout is claimed");
                }
                return Ok(true);
            }
            // While a registration is frozen, moves are registered (CHANNEL.md 7.3).
            _ if matches!(self.phase, Phase::Frozen(_)) => {
                self.frozen_command(line)?;
                return Ok(true);
            }
            "claim" => {
                let registered = self
                    .seat
                    .game(self.id)
                    .ok()
                    .and_then(|g| g.registrations.last().map(|r| r.ply))
                    .unwrap_or(0);
                let off_chain: Vec<chessref_core::State> = self
                    .channel
                    .transcript()
                    .moves
                    .iter()
                    .filter(|m| m.ply <= registered)
                    .filter_map(|m| chessref_core::State::from_bytes(&m.state).ok())
                    .collect();
                let prepared = self
                    .seat
                    .claim_draw_after(self.id, &off_chain)
                    .or_else(|_| self.seat.claim_timeout(self.id))
                    .map_err(game::seat_error);
                match prepared.and_then(|p| self.transact(p)) {
                    Ok(_) => self.settled = true,
                    Err(e) => self.error(&e.to_string()),
                }
                return Ok(true);
            }
            // On-chain the session commands are the referee's calls, not moves (issue 29).
            "resign" if self.on_chain() => {
                let prepared = self.seat.resign(self.id).map_err(game::seat_error);
                if let Err(e) = prepared.and_then(|p| self.transact(p)) {
                    self.error(&e.to_string());
                }
                return Ok(true);
            }
            "draw" if self.on_chain() => {
                // Accepts the opponent's standing offer, else offers one.
                let prepared = self
                    .seat
                    .accept_draw(self.id)
                    .or_else(|_| self.seat.offer_draw(self.id))
                    .map_err(game::seat_error);
                if let Err(e) = prepared.and_then(|p| self.transact(p)) {
                    self.error(&e.to_string());
                }
                return Ok(true);
            }
            _ if self.on_chain() => {
                let prepared = self.seat.play(self.id, line).map_err(game::seat_error);
                if let Err(e) = prepared.and_then(|p| self.transact(p)) {
                    self.error(&e.to_string());
                }
                return Ok(true);
            }
            "draw" if self.channel.draw_offered() => {
                self.channel.sign_result(3, t).map_err(|e| e.to_string())
            }
            "draw" => self.channel.offer_draw(t).map_err(|e| e.to_string()),
            "resign" => self.channel.resign(t).map_err(|e| e.to_string()),
            text => self.channel.play(text, t).map_err(|e| e.to_string()),
        };
        match outcome {
            Ok(frames) => {
                let moved = frames.iter().any(|f| matches!(f, Frame::Move(_)));
                self.send(frames)?;
                if moved {
                    self.heard = Instant::now();
                    self.sent_at = t;
                    self.own_move(|ply, san| format!("{ply} {san}: signed and sent"));
                    self.show();
                    self.agree_to_the_board()?;
                }
                if self.channel.ended().is_some() {
                    self.ended()?;
                }
            }
            Err(e) => self.error(&e),
        }
        Ok(true)
    }

    /// Sends a transaction: as `chessref game` shows it, or, with `--json`, a `sent` event.
    fn transact(
        &mut self,
        prepared: chessref_client::seat::Prepared,
    ) -> Result<chessref_client::seat::Sent, CliError> {
        if !self.out.json {
            return game::transact(&mut self.seat, prepared);
        }
        let sent = self.seat.send(prepared).map_err(game::seat_error)?;
        let tx = sent.receipt.tx_hash.unwrap_or_default();
        self.out.event(
            "sent",
            json!({"operation": sent.operation, "tx": tx.to_string(),
                   "gasUsed": sent.receipt.gas_used}),
            String::new,
        );
        Ok(sent)
    }

    fn error(&self, message: &str) {
        self.out
            .event("error", json!({"message": message}), || message.to_owned());
    }

    /// Every second: follow the chain's registrations; report an opponent's silence;
    /// on-chain, follow the game.
    fn every_second(&mut self) -> Result<(), CliError> {
        if !matches!(self.phase, Phase::Live) {
            self.follow_chain()?;
        }
        if matches!(self.phase, Phase::Frozen(_)) {
            return Ok(());
        }
        if matches!(self.phase, Phase::Live) {
            let view = match self.seat.view(self.id) {
                Ok(view) => view,
                Err(e) => {
                    self.error(&e.to_string());
                    return Ok(());
                }
            };
            let key = format!("{}{:?}", view.fen, view.ending);
            if self.shown_chain.as_deref() != Some(key.as_str()) {
                self.shown_chain = Some(key);
                if self.out.json {
                    let data = serde_json::to_value(&view).unwrap_or(Value::Null);
                    self.out.event("position", data, String::new);
                } else {
                    let _ = game::show(&view, false);
                }
                if view.ending.is_some() {
                    self.settled = true;
                }
            }
            return Ok(());
        }
        if !self.out.json && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
            // Both clocks counting, on one line redrawn in place.
            let (white, black) = self.clocks();
            print!(
                "\r  clocks: white {}, black {}  ",
                game::clock(white),
                game::clock(black)
            );
            let _ = std::io::stdout().flush();
        }
        if self.auto_register_due() {
            self.auto_register()?;
            return Ok(());
        }
        let waiting = self.channel.ended().is_none()
            && !self.channel.to_move()
            && self.channel.decided_code().is_none();
        if waiting && !self.warned && self.heard.elapsed() >= self.patience {
            self.warned = true;
            let last = self.channel.last();
            let acknowledged = self
                .channel
                .transcript()
                .moves
                .last()
                .is_some_and(|m| m.receipt.is_some());
            let deadline = if acknowledged || last.ply == 0 {
                None
            } else {
                Some(last.timestamp + chessref_channel::settlement::STAMP_TOLERANCE)
            };
            let auto = self
                .channel
                .auto_register_at(self.sent_at)
                .filter(|_| self.auto_register);
            let first_move = last.ply == 0;
            self.out.event(
                "silent",
                json!({"since": self.heard.elapsed().as_secs(), "ply": last.ply,
                       "registerBy": deadline, "autoRegisterAt": auto, "firstMove": first_move}),
                || match (deadline, auto) {
                    // Nothing runs on the waiting side's clock before the first move.
                    _ if first_move => format!(
                        "white has not made its first move for {} s: nothing is lost while you wait (no clock runs before it). If it never comes, `register` puts the game on-chain from the start, and once the response window and white's first-move window are over `claim` aborts it: both stakes go back",
                        self.heard.elapsed().as_secs()
                    ),
                    (Some(by), Some(at)) => format!(
                        "the opponent has not answered for {} s and never acknowledged your move: this client registers it itself at unix time {at} (10 s after sending it, at most 30 s after its stamp), or type `register` now; it must land before unix time {by} (60 s after its stamp)",
                        self.heard.elapsed().as_secs()
                    ),
                    (Some(by), None) => format!(
                        "the opponent has not answered for {} s and never acknowledged your move: type `register` before unix time {by} (60 s after its stamp) to put the game on-chain",
                        self.heard.elapsed().as_secs()
                    ),
                    (None, _) => format!(
                        "the opponent has not answered for {} s: type `register` to put the game on-chain from your acknowledged move (its clock runs from its receipt)",
                        self.heard.elapsed().as_secs()
                    ),
                },
            );
        }
        Ok(())
    }

    /// Whether the latest position occurred three times since the last irreversible move
    /// (the repetition keys of the moves held).
    fn threefold(&self) -> bool {
        let t = self.channel.transcript();
        let start = t.game.start().ok();
        let states = t
            .moves
            .iter()
            .filter_map(|m| chessref_core::State::from_bytes(&m.state).ok());
        let mut keys = Vec::new();
        // Newest first, back to the last irreversible move (or the start).
        for state in states.rev().chain(start) {
            keys.push(state.repetition_key());
            if state.halfmove_clock() == 0 {
                break;
            }
        }
        keys.first()
            .is_some_and(|now| keys.iter().filter(|k| *k == now).count() >= 3)
    }

    /// Whether the player's own latest move, still without the opponent's receipt, is due
    /// to be registered by the client itself now (CHANNEL.md 9): the game is still
    /// off-chain, no later move came, and it was not tried for this ply yet.
    fn auto_register_due(&self) -> bool {
        if !self.auto_register || self.on_chain() || self.settled {
            return false;
        }
        let ply = self.channel.last().ply;
        self.auto_tried != Some(ply)
            && self
                .channel
                .auto_register_at(self.sent_at)
                .is_some_and(|at| now() >= at)
    }

    /// Registers the player's own latest move, which the opponent has not acknowledged,
    /// without waiting for a command, and says so.
    fn auto_register(&mut self) -> Result<(), CliError> {
        let last = self.channel.last();
        self.auto_tried = Some(last.ply);
        let at = self.channel.auto_register_at(self.sent_at);
        self.out.event(
            "autoRegister",
            json!({"ply": last.ply, "stamp": last.timestamp, "sentAt": self.sent_at,
                   "at": at, "registerBy": last.timestamp + chessref_channel::settlement::STAMP_TOLERANCE,
                   "tipWei": AUTO_REGISTER_TIP.to_string()}),
            || format!(
                "your opponent has not acknowledged your move (ply {}) since unix time {}: registering it on-chain now, by itself, so that your clock is safe (it must land within 60 s of its stamp {})",
                last.ply, self.sent_at, last.timestamp
            ),
        );
        self.register_with(true)
    }

    /// Registers the latest pair held; the game goes on on-chain after the window.
    fn register(&mut self) -> Result<(), CliError> {
        self.register_with(false)
    }

    /// [`register`](Self::register), by the player's command or, `automatic`, by the
    /// client itself; either pays a priority fee of at least [`AUTO_REGISTER_TIP`], as a
    /// move without a receipt must land within 60 s of its stamp.
    fn register_with(&mut self, automatic: bool) -> Result<(), CliError> {
        let report = self
            .channel
            .transcript()
            .verify(&NoPins, now())
            .map_err(|e| CliError::Arg(e.to_string()))?;
        let settlement = report.settlement;
        if !matches!(settlement.call, "register" | "registerStart") {
            self.error(&format!(
                "the game ends by {}, not a registration: {}",
                settlement.call, settlement.why
            ));
            return Ok(());
        }
        let prepared = self.prepare_registration(&settlement).map(|mut p| {
            p.tx = p.tx.with_priority_fee(AUTO_REGISTER_TIP);
            p
        });
        match prepared.and_then(|p| self.transact(p)) {
            Ok(sent) => {
                self.socket = None;
                let tx = sent.receipt.tx_hash.unwrap_or_default();
                let ply = self.channel.last().ply;
                let referee = self.seat.referee().address();
                if shown::registered_in(referee, &sent.receipt.logs).is_none() {
                    // A registration landed first: the chain showed the move instead, and
                    // the one seen next is answered against it.
                    self.out.event(
                        "announced",
                        json!({"ply": ply, "tx": tx.to_string()}),
                        || format!("another registration landed before yours: the chain recorded when it showed ply {ply} (tx {tx}); it is registered again against the new one"),
                    );
                    return self.follow_chain();
                }
                let unacknowledged = self
                    .channel
                    .transcript()
                    .moves
                    .last()
                    .is_some_and(|m| m.receipt.is_none());
                self.out.event(
                    "registered",
                    json!({"ply": ply, "tx": tx.to_string(), "automatic": automatic,
                           "block": sent.receipt.block_number}),
                    || if automatic && unacknowledged {
                        format!("your opponent did not confirm your move: it was registered on-chain (ply {ply}, tx {tx}) so your clock is safe; the game goes on on-chain once the response window is over; type moves as before")
                    } else {
                        format!("registered ply {ply}: the game goes on on-chain once the response window is over; type moves as before")
                    },
                );
                self.follow_chain()?;
            }
            Err(e) => self.error(&e.to_string()),
        }
        Ok(())
    }

    /// The chain's time as a transaction sent now sees it: the latest block's, or the
    /// wall clock when that is later (a quiet chain mines no block until one is sent).
    fn chain_now(&mut self) -> u64 {
        let block = chessref_evm::Chain::timestamp(self.seat.referee().chain()).unwrap_or(0);
        block.max(now())
    }

    /// Looks for the game's latest registration (its own, the opponent's, a watchtower's):
    /// a new one is taken in while frozen ([`Session::on_frozen`]); once its window is over
    /// the game goes on on-chain. A failing node is reported and tried again next second.
    fn follow_chain(&mut self) -> Result<(), CliError> {
        if self.settled {
            return Ok(());
        }
        let key = match shown::registration(self.seat.referee(), self.id) {
            Ok(Some(key)) => key,
            Ok(None) => return Ok(()),
            Err(e) => {
                self.error(&format!("reading the game's registration: {e}"));
                return Ok(());
            }
        };
        if self.registration != Some(key) {
            let frozen = match Frozen::read(self.seat.referee(), self.id) {
                Ok(Some(frozen)) => frozen,
                Ok(None) => return Ok(()),
                Err(e) => {
                    self.error(&format!("reading the game's registration: {e}"));
                    return Ok(());
                }
            };
            self.registration = Some(key);
            if frozen.is_open(self.chain_now()) {
                return self.on_frozen(frozen);
            }
        }
        let chain_now = self.chain_now();
        let over = match &self.phase {
            Phase::Frozen(frozen) => !frozen.is_open(chain_now),
            Phase::OffChain => true,
            Phase::Live => false,
        };
        if over {
            self.live();
        }
        Ok(())
    }

    /// A new frozen registration: relaying stops; its moves are taken in, held from when
    /// the chain showed them; the player is told whose move it is and by when; a later pair
    /// the player holds overtakes it.
    fn on_frozen(&mut self, frozen: Frozen) -> Result<(), CliError> {
        self.socket = None;
        let t = now();
        let (taken, refused) = frozen.take_into(&mut self.channel, t);
        self.save()?;
        for received in &taken {
            self.moved(received, true);
        }
        for (ply, refusal) in refused {
            self.out.event(
                "refused",
                json!({"kind": refusal.kind(), "code": refusal.code(), "reason": refusal.to_string(), "from": "chain", "ply": ply}),
                || format!("the registered move of ply {ply} does not verify here: {refusal}"),
            );
        }
        let to_move = frozen.to_move();
        let yours = to_move == Some(self.channel.colour())
            && self.channel.last().ply == frozen.ply
            && self.channel.ended().is_none();
        let (ply, window_end, deadline) = (frozen.ply, frozen.window_end, frozen.reply_deadline());
        let side = to_move.map_or("nobody", |c| Side::of(c).name());
        self.out.event(
            "frozen",
            json!({"ply": ply, "windowEnd": window_end, "toMove": side, "yourMove": yours,
                   "deadline": deadline, "now": t, "fen": self.channel.position().fen()}),
            || {
                let turn = if yours {
                    "your move: type it and it is registered as the direct reply".to_owned()
                } else {
                    format!("{side} answers by registering its reply")
                };
                format!(
                    "ply {ply} is registered on-chain and frozen until unix time {window_end} ({} s); {side} to move, its flag falls at unix time {deadline} by the wall clock ({} s left): {turn}; play goes on on-chain after the window",
                    window_end.saturating_sub(t),
                    deadline.saturating_sub(t)
                )
            },
        );
        self.phase = Phase::Frozen(Box::new(frozen));
        if !taken.is_empty() {
            self.show();
        }
        self.answer_frozen(false)?;
        Ok(())
    }

    /// The window is over: on-chain play is live.
    fn live(&mut self) {
        let was_frozen = matches!(self.phase, Phase::Frozen(_));
        self.phase = Phase::Live;
        self.socket = None;
        if was_frozen {
            let ply = self.registration.map_or(0, |(ply, _)| ply);
            self.out.event("live", json!({"ply": ply}), || {
                format!("the response window is over: the game goes on on-chain from ply {ply}; type moves as before")
            });
        }
    }

    /// What the watchtower's rule sends for the frozen registration from the player's
    /// transcript ([`watchtower::answer`]): a later pair it holds overtakes (the direct reply
    /// among them), a contradicting registration is proven, a signed end settles. Sent
    /// once per registration and ply held, with the automatic registration's tip; by itself
    /// unless `--no-auto-register` (then on `register`, or `asked`: the player's own move).
    /// Whether something was due.
    fn answer_frozen(&mut self, asked: bool) -> Result<bool, CliError> {
        let Phase::Frozen(frozen) = &self.phase else {
            return Ok(false);
        };
        let attempt = (frozen.ply, frozen.window_end, self.channel.last().ply);
        let frozen = frozen.clone();
        let chain_now = self.chain_now();
        let Some(Answer::Channel(settlement)) =
            watchtower::answer(self.channel.transcript(), &frozen, chain_now)
        else {
            return Ok(false);
        };
        if !asked && !self.auto_register {
            self.out.event(
                "note",
                json!({"message": "you hold a later pair than the registered one: type `register` to overtake it", "call": settlement.call}),
                || format!("you hold a later pair than the registered one (ply {}): type `register` to send ChessChannel.{} ({})", frozen.ply, settlement.call, settlement.why),
            );
            return Ok(true);
        }
        if self.answered == Some(attempt) && !asked {
            return Ok(true);
        }
        self.answered = Some(attempt);
        let held = self.channel.last().ply;
        self.out.event(
            "overtake",
            json!({"registeredPly": frozen.ply, "ply": held, "call": settlement.call,
                   "why": settlement.why, "automatic": !asked,
                   "tipWei": AUTO_REGISTER_TIP.to_string()}),
            || format!(
                "ply {} is registered on-chain; you hold ply {held}: sending ChessChannel.{} now ({})",
                frozen.ply, settlement.call, settlement.why
            ),
        );
        let prepared = self.prepare_registration(&settlement).map(|mut p| {
            p.tx = p.tx.with_priority_fee(AUTO_REGISTER_TIP);
            p
        });
        let sent = match prepared.and_then(|p| self.transact(p)) {
            Ok(sent) => sent,
            Err(e) => {
                self.error(&e.to_string());
                return Ok(true);
            }
        };
        if settlement.call != "register" {
            return Ok(true);
        }
        let tx = sent.receipt.tx_hash.unwrap_or_default();
        let referee = self.seat.referee().address();
        match shown::registered_in(referee, &sent.receipt.logs) {
            Some(ply) => self.out.event(
                "registered",
                json!({"ply": ply, "tx": tx.to_string(), "automatic": !asked, "overtake": true,
                       "registeredPly": frozen.ply, "block": sent.receipt.block_number}),
                || format!("registered ply {ply} over ply {} (tx {tx}): it is frozen for the response window in its turn", frozen.ply),
            ),
            // Another registration landed first: the chain showed the move, counted from
            // then; the next one seen is answered again.
            None => self.out.event(
                "announced",
                json!({"ply": held, "tx": tx.to_string(), "registeredPly": frozen.ply}),
                || format!("another registration landed before yours: the chain recorded when it showed ply {held} (tx {tx}); it is registered again against the new one"),
            ),
        }
        self.follow_chain()?;
        Ok(true)
    }

    /// A command while a registration is frozen: the player's move, signed here and
    /// registered as the direct reply (not relayed); a resignation, sent as one; `claim` and
    /// `draw` wait for the relay or for on-chain play.
    fn frozen_command(&mut self, line: &str) -> Result<(), CliError> {
        let Phase::Frozen(frozen) = &self.phase else {
            return Ok(());
        };
        let (ply, window_end) = (frozen.ply, frozen.window_end);
        let t = now();
        match line {
            "claim" => {
                self.error(&format!("ply {ply} is registered and frozen until unix time {window_end}: a draw or a timeout is claimed once on-chain play is live"));
            }
            "draw" => {
                self.error("a draw needs both signatures, which go through the relay: while a registration is frozen, play goes on by registrations (resign, or move)");
            }
            "resign" => match self.channel.resign(t) {
                Ok(_) => {
                    self.save()?;
                    self.answer_frozen(true)?;
                }
                Err(e) => self.error(&e.to_string()),
            },
            text => {
                let held = self.channel.last().ply;
                if held != ply {
                    self.error(&format!(
                        "ply {ply} is registered on-chain, but you hold ply {held}: {}",
                        if held > ply {
                            "your later pair overtakes it (type `register` if it was not sent)"
                        } else {
                            "its signed move could not be taken from the chain"
                        }
                    ));
                    return Ok(());
                }
                if !self.channel.to_move() {
                    let side = frozen.to_move().map_or("nobody", |c| Side::of(c).name());
                    self.error(&format!(
                        "not your move: ply {ply} is registered on-chain with {side} to move, who answers by registering its reply"
                    ));
                    return Ok(());
                }
                match self.channel.play(text, t) {
                    Ok(_) => {
                        self.save()?;
                        self.sent_at = t;
                        self.own_move(|ply, san| {
                            format!("{ply} {san}: registering it as the direct reply")
                        });
                        self.show();
                        self.answer_frozen(true)?;
                    }
                    Err(e) => self.error(&e.to_string()),
                }
            }
        }
        Ok(())
    }

    /// The registration `settlement`, estimated. A receipt passes only in a block timed at
    /// or after its `seenAt` (CHANNEL.md 7.3): one held a moment ago can be ahead of the
    /// time a node estimates in (a node that estimates in its latest block, a clock a
    /// second behind), so that refusal is retried while the receipt is young, then
    /// reported with both times.
    fn prepare_registration(
        &mut self,
        settlement: &chessref_channel::settlement::Settlement,
    ) -> Result<chessref_client::seat::Prepared, CliError> {
        let seen_at = self
            .channel
            .transcript()
            .moves
            .last()
            .and_then(|m| m.receipt.as_ref())
            .map(|r| r.seen_at);
        let mut tries = 0;
        loop {
            match self.seat.prepare_channel(settlement) {
                Err(chessref_client::seat::SeatError::WouldRevert { revert, .. })
                    if revert.name() == "BadReceipt" && seen_at.is_some() =>
                {
                    let seen_at = seen_at.unwrap_or_default();
                    let chain_time =
                        chessref_evm::Chain::timestamp(self.seat.referee().chain()).ok();
                    tries += 1;
                    if tries > RECEIPT_RETRIES {
                        return Err(CliError::Refused(format!(
                            "register would revert with BadReceipt (nothing sent): the receipt was held at {seen_at}, the chain's latest block is timed {}, now is {}",
                            chain_time.map_or_else(|| "unknown".to_owned(), |t| t.to_string()),
                            now()
                        )));
                    }
                    std::thread::sleep(Duration::from_secs(1));
                }
                other => return other.map_err(game::seat_error),
            }
        }
    }

    /// Both players' remaining seconds now: the side to move's clock runs from the latest
    /// move's stamp, or, on the player's own move, from its receipt of it (what its reply
    /// is charged from, CHANNEL.md 8).
    fn clocks(&self) -> (u64, u64) {
        let last = self.channel.last();
        let since = now().saturating_sub(self.channel.clock_from());
        let (mut white, mut black) = (u64::from(last.whiteTime), u64::from(last.blackTime));
        if last.ply > 0 && self.channel.ended().is_none() {
            match self.channel.position().turn() {
                chessref_core::Color::White => white = white.saturating_sub(since),
                chessref_core::Color::Black => black = black.saturating_sub(since),
            }
        }
        (white, black)
    }

    fn show(&self) {
        if self.out.json {
            return;
        }
        let position = self.channel.position();
        let last = self.channel.last();
        let flipped = self.channel.colour() == chessref_core::Color::Black;
        let uci = self.channel.last_move().map(|(_, uci)| uci);
        let mut text = game::grid(&position.fen(), uci.as_deref(), flipped);
        let (white, black) = self.clocks();
        text.push_str(&format!(
            "ply {}, {} to move{}; clocks: white {}, black {}\n",
            last.ply,
            position.turn(),
            if self.channel.to_move() {
                " (your move)"
            } else {
                ""
            },
            game::clock(white),
            game::clock(black)
        ));
        print!("{text}");
        let _ = std::io::stdout().flush();
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;

    /// Issue 29, item 3: the relay's 404 right after `channel join` (its index has not seen
    /// the join yet) is said as such, not as an unreachable relay.
    #[test]
    fn a_relay_that_does_not_know_the_game_yet_is_named_so() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let relay = format!("http://{}", listener.local_addr().unwrap());
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut request = [0u8; 2048];
            let _ = stream.read(&mut request);
            let body = "unknown game 7";
            write!(
                stream,
                "HTTP/1.1 404 Not Found\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            )
            .unwrap();
        });
        let Err(error) = connect(&relay, U256::from(7)) else {
            panic!("a 404 gives no socket");
        };
        server.join().unwrap();
        assert!(
            error.starts_with("the relay has not seen game 7's join yet"),
            "{error}"
        );
    }
}
