//! Issue 30: a `chessref serve` instance killed mid-game. Two instances relay one game
//! over a throwaway Postgres, behind a TCP load balancer as an operator would put in
//! front of them; the players are `chessref channel play` processes, one on each
//! instance; an instance is SIGKILLed (no graceful stop) while the game goes on. Its
//! clients reconnect through the balancer to the survivor and resync, the game ends by
//! mate and is settled on-chain, and the store, the served transcript and both players'
//! own transcripts hold every message once.

mod common;

use std::collections::HashSet;
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use alloy_primitives::{Address, U256};
use chessref_channel::book::frames_of;
use chessref_channel::{Frame, NoPins, RelayFrame, Transcript};
use chessref_pgtest::TempPostgres;
use common::{BLACK, KEY_BLACK, KEY_WHITE, Player, Process, Table, WHITE, exchange_ply};
use serde_json::Value;

/// The scholar's mate: white mates at ply 7.
const SCHOLAR: [&str; 7] = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"];

/// Bytes passed through the balancer, as they were read.
struct Forwarded {
    /// The connection (in the order accepted).
    conn: usize,
    /// The instance of the connection.
    backend: usize,
    /// From the client to the instance, or back.
    upstream: bool,
}

/// What the test may do to the balancer's bytes: hold every instance's back (`frozen`),
/// and drop a held connection's instead of passing them on (`cut`): a message an
/// instance stored then answered can be made an answer never heard. And drop the next
/// bytes a client sends on another connection than one (`trap`): a message sent to an
/// instance that died before it read it.
#[derive(Default)]
struct Gate {
    frozen: AtomicBool,
    cut: Mutex<HashSet<usize>>,
    trap: Mutex<Trap>,
}

/// The gate's trap: armed to spare one connection, then sprung on another.
#[derive(Default)]
struct Trap {
    /// The connection spared while armed.
    sparing: Option<usize>,
    /// The connection and instance whose bytes it dropped.
    sprung: Option<(usize, usize)>,
}

impl Gate {
    /// Whether bytes a client sent on connection `conn` to instance `backend` may pass
    /// (not when they spring the trap).
    fn pass_up(&self, conn: usize, backend: usize) -> bool {
        let mut trap = self.trap.lock().unwrap();
        if trap.sparing.is_some_and(|spared| spared != conn) {
            trap.sparing = None;
            trap.sprung = Some((conn, backend));
            return false;
        }
        true
    }

    /// Waits while frozen; whether connection `conn`'s bytes may pass.
    fn pass(&self, conn: usize) -> bool {
        loop {
            if self.cut.lock().unwrap().contains(&conn) {
                return false;
            }
            if !self.frozen.load(Ordering::SeqCst) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// An L4 load balancer on `127.0.0.1:0`: each new connection goes to the next instance
/// in turn, skipping one that refuses it, and its bytes are copied both ways until
/// either side closes (an instance killed closes its side, so its clients see their
/// connection lost, as behind a real balancer).
struct Balancer {
    addr: SocketAddr,
    /// The instance each accepted connection went to, in order.
    routes: Arc<Mutex<Vec<usize>>>,
    /// Every chunk read, either way.
    forwarded: Receiver<Forwarded>,
    gate: Arc<Gate>,
}

impl Balancer {
    fn start(backends: &[u16]) -> Balancer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let backends: Vec<SocketAddr> = backends
            .iter()
            .map(|port| SocketAddr::from(([127, 0, 0, 1], *port)))
            .collect();
        let routes = Arc::new(Mutex::new(Vec::new()));
        let gate = Arc::new(Gate::default());
        let (tx, forwarded) = channel();
        let (record, gates) = (Arc::clone(&routes), Arc::clone(&gate));
        std::thread::spawn(move || {
            let next = AtomicUsize::new(0);
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                let first = next.fetch_add(1, Ordering::SeqCst);
                let picked = (0..backends.len())
                    .map(|k| (first + k) % backends.len())
                    .find_map(|b| {
                        TcpStream::connect_timeout(&backends[b], Duration::from_secs(1))
                            .ok()
                            .map(|stream| (b, stream))
                    });
                // None reachable: the client's connection is closed at once.
                let Some((backend, upstream)) = picked else {
                    continue;
                };
                let conn = {
                    let mut routes = record.lock().unwrap();
                    routes.push(backend);
                    routes.len() - 1
                };
                let route = Forwarded {
                    conn,
                    backend,
                    upstream: true,
                };
                pipe(client, upstream, route, tx.clone(), Arc::clone(&gates));
            }
        });
        Balancer {
            addr,
            routes,
            forwarded,
            gate,
        }
    }

    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn routes(&self) -> Vec<usize> {
        self.routes.lock().unwrap().clone()
    }

    /// Forgets what was forwarded so far.
    fn drain(&self) {
        while self.forwarded.try_recv().is_ok() {}
    }

    /// The next chunk a client sent (up to 30 s).
    fn next_upstream(&self) -> Forwarded {
        loop {
            let chunk = self
                .forwarded
                .recv_timeout(Duration::from_secs(30))
                .expect("a client's bytes through the balancer");
            if chunk.upstream {
                return chunk;
            }
        }
    }

    /// Holds every instance's bytes back from the clients (`true`), or passes them on.
    fn freeze(&self, frozen: bool) {
        self.gate.frozen.store(frozen, Ordering::SeqCst);
    }

    /// Arms the trap: the next bytes a client sends on another connection than `spared`
    /// are dropped, and that connection closed.
    fn arm(&self, spared: usize) {
        let mut trap = self.gate.trap.lock().unwrap();
        *trap = Trap {
            sparing: Some(spared),
            sprung: None,
        };
    }

    /// The connection and instance the trap caught, once it did.
    fn sprung(&self) -> Option<(usize, usize)> {
        self.gate.trap.lock().unwrap().sprung
    }

    /// Every connection accepted so far to instance `backend`: never passes another byte
    /// back.
    fn cut(&self, backend: usize) {
        let routes = self.routes();
        let mut cut = self.gate.cut.lock().unwrap();
        cut.extend((0..routes.len()).filter(|&c| routes[c] == backend));
    }
}

/// Copies `client` to `upstream` and back, each way on a thread of its own, saying so
/// on `tx`; the way back passes `gate`. When either way ends, both connections are shut.
fn pipe(
    client: TcpStream,
    upstream: TcpStream,
    route: Forwarded,
    tx: Sender<Forwarded>,
    gate: Arc<Gate>,
) {
    let Forwarded { conn, backend, .. } = route;
    let (client_in, upstream_out) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
    let back = tx.clone();
    let up = Arc::clone(&gate);
    std::thread::spawn(move || {
        copy(client_in, upstream_out, || {
            let _ = tx.send(Forwarded {
                conn,
                backend,
                upstream: true,
            });
            up.pass_up(conn, backend)
        })
    });
    std::thread::spawn(move || {
        copy(upstream, client, || {
            let _ = back.send(Forwarded {
                conn,
                backend,
                upstream: false,
            });
            gate.pass(conn)
        })
    });
}

/// Copies `from` to `to`, each chunk read passed on only if `pass` says so (the copy
/// ends otherwise), then shuts both.
fn copy(mut from: TcpStream, mut to: TcpStream, pass: impl Fn() -> bool) {
    let mut buf = [0u8; 16 * 1024];
    loop {
        match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if !pass() || to.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        }
    }
    let _ = from.shutdown(Shutdown::Both);
    let _ = to.shutdown(Shutdown::Both);
}

/// Two `chessref serve` instances on one Postgres, the balancer in front of them, and
/// the table's game known to them.
struct Cluster {
    table: Table,
    ports: [u16; 2],
    /// `None` once killed.
    serves: [Option<Process>; 2],
    balancer: Balancer,
    _pg: TempPostgres,
}

impl Cluster {
    fn start(name: &str) -> Cluster {
        let pg = TempPostgres::start().expect("a throwaway Postgres (Debian's postgresql)");
        let mut table = Table::on(name, Some(pg.url()));
        let first = common::free_port();
        let second = loop {
            let port = common::free_port();
            if port != first {
                break port;
            }
        };
        let ports = [first, second];
        let serves = ports.map(|port| Some(common::spawn_serve(&table.db, port)));
        let balancer = Balancer::start(&ports);
        table.relay = balancer.url();
        table.open_game();
        let cluster = Cluster {
            table,
            ports,
            serves,
            balancer,
            _pg: pg,
        };
        // The relay refuses a game its index has not seen joined yet, and a client
        // refused tries again on a new connection: the players start once it is known,
        // so that their connections alternate between the instances.
        // Joined, not only created: a game its index holds but not yet as joined is
        // refused too (CI saw a third connection, [0, 1, 0], with only `200` awaited).
        cluster.wait_for("the game indexed as joined", |c| {
            let (status, body) = get(c.ports[0], &format!("/v1/games/{}", c.table.id));
            status == 200
                && serde_json::from_str::<Value>(&body).is_ok_and(|game| game["phase"] == "running")
        });
        cluster
    }

    /// Polls `ready` (up to 60 s), naming `what` if it never holds.
    fn wait_for(&self, what: &str, ready: impl Fn(&Cluster) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !ready(self) {
            assert!(Instant::now() < deadline, "no {what} within 60 s");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// How many games instance `i` relays now (`/v1/health`).
    fn relayed(&self, i: usize) -> u64 {
        let (status, body) = get(self.ports[i], "/v1/health");
        assert_eq!(status, 200, "{body}");
        let health: Value = serde_json::from_str(&body).unwrap();
        health["relayedGames"].as_u64().expect("relayedGames")
    }

    /// White, then black, each on an instance of its own: the instance white is on.
    fn seat_players(&self) -> (Player, Player, usize) {
        let white = self.table.player("white", KEY_WHITE);
        self.wait_for("white's room", |c| c.relayed(0) + c.relayed(1) == 1);
        let on = usize::from(self.relayed(1) == 1);
        let black = self.table.player("black", KEY_BLACK);
        self.wait_for("black's room", |c| c.relayed(1 - on) == 1);
        // Each instance holds the game's room for one connection: one player each.
        assert_eq!((self.relayed(0), self.relayed(1)), (1, 1));
        let routes = self.balancer.routes();
        assert_eq!(routes.len(), 2, "one connection each: {routes:?}");
        assert_eq!(
            routes[0], on,
            "white's connection went where white's room is"
        );
        assert_eq!(routes[1], 1 - on, "black's connection went to the other");
        (white, black, on)
    }

    /// SIGKILLs instance `i` (no graceful stop).
    fn kill(&mut self, i: usize) {
        let mut serve = self.serves[i].take().expect("instance running");
        serve.0.kill().unwrap();
        serve.0.wait().unwrap();
    }

    /// Starts instance `i` again, on its port.
    fn restart(&mut self, i: usize) {
        self.serves[i] = Some(common::spawn_serve(&self.table.db, self.ports[i]));
    }

    /// `GET /v1/games/{id}/transcript` at instance `i`.
    fn transcript_at(&self, i: usize) -> Transcript {
        let (status, body) = get(
            self.ports[i],
            &format!("/v1/games/{}/transcript", self.table.id),
        );
        assert_eq!(status, 200, "{body}");
        Transcript::from_json(&body).unwrap()
    }

    /// The game's rows of `relay_messages`: `(seq, kind, ply, body)` by seq.
    fn stored(&self) -> Vec<(i64, String, i64, String)> {
        let mut client = postgres::Client::connect(&self.table.db, postgres::NoTls).unwrap();
        client
            .query(
                "SELECT seq, kind, ply, body FROM relay_messages WHERE game_id = $1 ORDER BY seq",
                &[&self.table.id],
            )
            .unwrap()
            .iter()
            .map(|row| (row.get(0), row.get(1), row.get(2), row.get(3)))
            .collect()
    }

    /// The message number of move `ply` of the game in the store, if it is there.
    fn stored_move(&self, ply: i64) -> Option<i64> {
        self.stored()
            .iter()
            .find(|(_, kind, p, _)| kind == "move" && *p == ply)
            .map(|row| row.0)
    }

    /// `name`'s move `ply`, as its client sends it, sent again on a new connection
    /// through the balancer (as a client that never heard back may): the relay's answer.
    fn resend(&self, name: &str, ply: u32) -> RelayFrame {
        let own = std::fs::read_to_string(self.table.transcript(name)).unwrap();
        let frame = frames_of(&Transcript::from_json(&own).unwrap())
            .into_iter()
            .find(|f| matches!(f, Frame::Move(m) if m.ply == ply))
            .expect("the move in the mover's transcript");
        let url = format!(
            "ws://{}/v1/games/{}/channel",
            self.balancer.addr, self.table.id
        );
        let (mut socket, _) = tungstenite::connect(&url).unwrap();
        let mut read = || loop {
            if let tungstenite::Message::Text(text) = socket.read().unwrap() {
                return serde_json::from_str::<RelayFrame>(text.as_str()).unwrap();
            }
        };
        let RelayFrame::Welcome { latest, .. } = read() else {
            panic!("no welcome");
        };
        for _ in 0..latest {
            assert!(matches!(read(), RelayFrame::Message { .. }));
        }
        let text = serde_json::to_string(&frame).unwrap();
        socket.send(tungstenite::Message::text(text)).unwrap();
        // The opponent's receipt may be forwarded meanwhile; the frame sent again never
        // is (it would be a second copy).
        let answer = loop {
            let tungstenite::Message::Text(text) = socket.read().unwrap() else {
                continue;
            };
            match serde_json::from_str::<RelayFrame>(text.as_str()).unwrap() {
                RelayFrame::Message { message, seq, .. } => {
                    assert_ne!(message, frame, "message {seq}: the move again")
                }
                answer => break answer,
            }
        };
        let _ = socket.close(None);
        answer
    }

    /// `wait()`, or if it panics, what the store holds said first.
    fn or_tell_the_store<T>(&self, wait: impl FnOnce() -> T) -> T {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(wait)).unwrap_or_else(|e| {
            let rows: Vec<_> = self.stored().into_iter().map(|r| (r.0, r.1, r.2)).collect();
            eprintln!("the store (seq, kind, ply): {rows:?}");
            std::panic::resume_unwind(e)
        })
    }

    /// The game played to the end, settled by white, and checked: on-chain white won,
    /// and the store, the transcript served by `survivor` and both players' own
    /// transcripts hold each message once.
    fn finish(&self, white: Player, black: Player, survivor: usize) {
        let ended = self.or_tell_the_store(|| white.expect("ended", |_| true));
        assert_eq!(
            (ended["result"].as_u64(), ended["youSettle"].as_bool()),
            (Some(1), Some(true)),
            "{ended}"
        );
        white.expect("settled", |_| true);
        self.or_tell_the_store(|| black.expect("ended", |e| e["youSettle"] == false));
        assert!(white.exit_status().success());
        assert!(black.exit_status().success());

        let mut referee = self.table.referee();
        let game = referee.game(self.table.game_id()).unwrap();
        assert_eq!(
            (game.phase, game.result),
            (3, 1),
            "ended on-chain, white won"
        );
        let stake = U256::from(10u64.pow(16));
        let (white_address, black_address): (Address, Address) =
            (WHITE.parse().unwrap(), BLACK.parse().unwrap());
        assert_eq!(
            referee.credits(white_address, Address::ZERO).unwrap(),
            stake * U256::from(2)
        );
        assert_eq!(
            referee.credits(black_address, Address::ZERO).unwrap(),
            U256::ZERO
        );

        // The store: messages 1..N, each number once, no frame twice, every move once.
        let rows = self.stored();
        let seqs: Vec<i64> = rows.iter().map(|r| r.0).collect();
        assert_eq!(seqs, (1..=rows.len() as i64).collect::<Vec<_>>(), "dense");
        let mut bodies: Vec<&str> = rows.iter().map(|r| r.3.as_str()).collect();
        bodies.sort_unstable();
        bodies.dedup();
        assert_eq!(bodies.len(), rows.len(), "a frame stored twice");
        let moves: Vec<i64> = rows.iter().filter(|r| r.1 == "move").map(|r| r.2).collect();
        assert_eq!(moves, (1..=SCHOLAR.len() as i64).collect::<Vec<_>>());

        // The survivor serves it whole, verified, as both players keep it.
        let served = self.transcript_at(survivor);
        let report = served.verify(&NoPins, unix_now()).unwrap();
        assert!(report.error.is_none(), "{report:?}");
        assert_eq!(report.valid_plies as usize, SCHOLAR.len());
        assert_eq!(served.moves.len(), SCHOLAR.len());
        assert_eq!(served.result.as_ref().map(|r| r.result), Some(1));
        for name in ["white", "black"] {
            let own = std::fs::read_to_string(self.table.transcript(name)).unwrap();
            assert_eq!(
                signed_content(&Transcript::from_json(&own).unwrap()),
                signed_content(&served),
                "{name}'s transcript"
            );
        }
    }
}

/// What `t` holds, whatever order its delegations came in (a player files its own
/// first when it made it before the opponent's arrived; the relay, in arrival order):
/// its frames as JSON, each move's delegation counted among its side's, the
/// delegations sorted.
fn signed_content(t: &Transcript) -> Vec<String> {
    let (delegations, rest): (Vec<Frame>, Vec<Frame>) = frames_of(t)
        .into_iter()
        .partition(|f| matches!(f, Frame::Delegation(_)));
    let json = |frames: Vec<Frame>| -> Vec<String> {
        frames
            .iter()
            .map(|f| serde_json::to_string(f).unwrap())
            .collect()
    };
    let mut content = json(delegations);
    content.sort();
    content.extend(json(rest));
    content
}

/// `GET path` at `127.0.0.1:port`: its status and body.
fn get(port: u16, path: &str) -> (u16, String) {
    let answer = chessref_evm::http::get(
        &format!("http://127.0.0.1:{port}{path}"),
        1 << 20,
        Duration::from_secs(10),
    )
    .unwrap();
    (
        answer.status,
        String::from_utf8_lossy(&answer.body).into_owned(),
    )
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

#[test]
fn an_instance_killed_mid_game_hands_its_players_to_the_other_and_nothing_is_lost_or_duplicated() {
    let mut cluster = Cluster::start("failover");
    let (mut white, mut black, on) = cluster.seat_players();
    for (ply, san) in (1..).zip(&SCHOLAR[..4]) {
        exchange_ply(&mut white, &mut black, san, ply);
    }
    // White's instance dies; white moves at once, into a connection that is gone.
    let killed = Instant::now();
    cluster.kill(on);
    white.say(SCHOLAR[4]);
    let seen = black.expect("move", |e| e["ply"] == 5);
    let failover = killed.elapsed();
    assert_eq!(seen["san"], SCHOLAR[4], "{seen}");
    white.expect("relay", |_| true);
    // Both now on the survivor, which the balancer sent white's new connection to.
    let routes = cluster.balancer.routes();
    assert_eq!(routes.last(), Some(&(1 - on)), "{routes:?}");
    assert_eq!(cluster.relayed(1 - on), 1);
    for (ply, san) in (6..).zip(&SCHOLAR[5..]) {
        exchange_ply(&mut white, &mut black, san, ply);
    }
    cluster.finish(white, black, 1 - on);
    eprintln!(
        "failover: {} plies, instance {on} killed after ply 4; kill to ply 5 relayed by the \
         survivor: {failover:?}; {} connections through the balancer",
        SCHOLAR.len(),
        cluster.balancer.routes().len()
    );
}

#[test]
fn an_instance_killed_after_storing_a_move_its_mover_never_heard_back_about_keeps_it_once() {
    let mut cluster = Cluster::start("unanswered");
    let (mut white, mut black, _) = cluster.seat_players();
    exchange_ply(&mut white, &mut black, SCHOLAR[0], 1);
    // From ply 2 on, the worst moment: the balancer holds every answer back, the move
    // is said, its instance stores it (it is in Postgres), and dies before the mover
    // hears anything of it. The mover's client resends what the relay lacks after it
    // reconnects: here nothing, as the survivor's backlog holds the move already.
    let mut failovers = Vec::new();
    for (ply, san) in (2..).zip(&SCHOLAR[1..]) {
        // Quiet: the receipt of the move before has passed.
        std::thread::sleep(Duration::from_millis(300));
        cluster.balancer.drain();
        cluster.balancer.freeze(true);
        let mover = if ply % 2 == 1 { &mut white } else { &mut black };
        mover.say(san);
        let reached = cluster.balancer.next_upstream();
        cluster.wait_for(&format!("move {ply} stored"), |c| {
            c.stored_move(ply).is_some()
        });
        cluster.balancer.cut(reached.backend);
        let killed = Instant::now();
        cluster.kill(reached.backend);
        cluster.balancer.freeze(false);
        let (mover, other) = if ply % 2 == 1 {
            (&white, &black)
        } else {
            (&black, &white)
        };
        let seen = other.expect("move", |e| e["ply"] == ply);
        failovers.push(killed.elapsed());
        assert_eq!(seen["san"], *san, "{seen}");
        mover.expect("move", |e| e["ply"] == ply && e["from"] == "you");
        mover.expect("relay", |_| true);
        // Sent again by its mover, the move is known: a duplicate of the stored copy.
        let name = if ply % 2 == 1 { "white" } else { "black" };
        let answer = cluster.resend(name, ply as u32);
        let seq = cluster.stored_move(ply).unwrap() as u64;
        assert!(
            matches!(answer, RelayFrame::Duplicate { seq: held } if held == seq),
            "{answer:?}"
        );
        cluster.restart(reached.backend);
    }
    let survivor = cluster
        .serves
        .iter()
        .position(Option::is_some)
        .expect("an instance running");
    cluster.finish(white, black, survivor);
    eprintln!(
        "unanswered: {} kills, each after its instance stored a move its mover never heard \
         back about; kill to the move seen by the other: {failovers:?}; {} connections \
         through the balancer",
        failovers.len(),
        cluster.balancer.routes().len()
    );
}

#[test]
fn instances_killed_at_moments_after_a_move_reached_them_lose_and_duplicate_nothing() {
    let mut cluster = Cluster::start("worst");
    let (mut white, mut black, _) = cluster.seat_players();
    exchange_ply(&mut white, &mut black, SCHOLAR[0], 1);
    // From ply 2 on: the move is said, and the instance its bytes went to is killed
    // `delay` after they passed the balancer: before it stored the move, or after it
    // stored it but before the mover heard back. Then it comes back on its port.
    let delays_ms = [0u64, 1, 3, 8, 20, 50];
    let mut failovers = Vec::new();
    let mut stored_unanswered = 0;
    for ((ply, san), delay) in (2..).zip(&SCHOLAR[1..]).zip(delays_ms) {
        // Quiet: the receipt of the move before has passed.
        std::thread::sleep(Duration::from_millis(300));
        cluster.balancer.drain();
        let mover = if ply % 2 == 1 { &mut white } else { &mut black };
        mover.say(san);
        let reached = cluster.balancer.next_upstream();
        std::thread::sleep(Duration::from_millis(delay));
        let killed = Instant::now();
        cluster.kill(reached.backend);
        let stored = cluster.stored_move(ply).is_some();
        // Whether the instance said anything back on the mover's connection (the move
        // echoed) before it died.
        let answered = cluster
            .balancer
            .forwarded
            .try_iter()
            .any(|c| c.conn == reached.conn && !c.upstream);
        if stored && !answered {
            stored_unanswered += 1;
        }
        let (mover, other) = if ply % 2 == 1 {
            (&white, &black)
        } else {
            (&black, &white)
        };
        let seen = other.expect("move", |e| e["ply"] == ply);
        failovers.push(killed.elapsed());
        assert_eq!(seen["san"], *san, "{seen}");
        mover.expect("move", |e| e["ply"] == ply && e["from"] == "you");
        eprintln!(
            "ply {ply}: instance {} killed {delay} ms after the move passed the balancer, \
             the move {} by then, the mover {}; the other had it {:?} after the kill",
            reached.backend,
            if stored { "stored" } else { "not stored" },
            if answered { "answered" } else { "not answered" },
            failovers.last().unwrap()
        );
        cluster.restart(reached.backend);
    }
    let survivor = cluster
        .serves
        .iter()
        .position(Option::is_some)
        .expect("an instance running");
    cluster.finish(white, black, survivor);
    eprintln!(
        "kills: {}, {stored_unanswered} of them after the move was stored and before its \
         mover heard back; kill to the move seen: {failovers:?}; {} connections through the \
         balancer",
        failovers.len(),
        cluster.balancer.routes().len()
    );
}

#[test]
fn the_mated_sides_last_word_lost_with_its_instance_is_sent_again_before_it_leaves() {
    let mut cluster = Cluster::start("lastword");
    let (mut white, mut black, _) = cluster.seat_players();
    for (ply, san) in (1..).zip(&SCHOLAR[..6]) {
        exchange_ply(&mut white, &mut black, san, ply);
    }
    // White mates (its move and its result half). Black's answer (its receipt and its
    // half, all white needs to settle) reaches an instance that dies before reading it;
    // black's game has ended by then (white's half is enough for it), and its client
    // must not leave before the relay holds its answer.
    std::thread::sleep(Duration::from_millis(300));
    cluster.balancer.drain();
    cluster.balancer.freeze(true);
    white.say(SCHOLAR[6]);
    let mate = cluster.balancer.next_upstream();
    cluster.balancer.arm(mate.conn);
    cluster.balancer.freeze(false);
    cluster.wait_for("black's answer caught", |c| c.balancer.sprung().is_some());
    let (_, instance) = cluster.balancer.sprung().unwrap();
    cluster.kill(instance);
    cluster.finish(white, black, 1 - instance);
}
