//! A player's side of a `ChessReferee` game on a real chain (issue 17's client crate):
//! [`seat`] acts for one player over JSON-RPC (create, join, move, draw, claim,
//! resign, withdraw) and follows the game from the referee's logs; [`game_log`] folds
//! those logs into games (what the indexer stores too); [`terms`] is the terms hash a
//! joiner binds; [`amount`] reads and shows stakes in a token's units; [`shown`] reads
//! what the chain shows of a channel game's signed moves (its frozen registration);
//! [`watchtower`] is the rule that answers a channel game's registration, for a player
//! who is away and for a player's own client, and announces a move left unacknowledged;
//! [`channel_moves`] finds a channel game's moves (a player's transcript, the relay) and
//! checks them against the chain before they are shown;
//! [`session`] plays a channel game for one player (relay, chain, registrations) by
//! commands and events, what `chessref channel play` and a Rust bot run;
//! [`keys`] is where the player's key comes from (the environment, an encrypted
//! keystore, or an account the node holds unlocked), never the command line. It sits
//! on `chessref-evm` (chain backends, bindings, the referee client) and is what
//! `chessref game` drives.

/// Stakes and credits in their units: the evm crate's, which reverts (`WrongEthAmount`) speak in too.
pub use chessref_evm::amount;
pub mod channel_moves;
pub mod game_log;
pub mod keys;
pub mod seat;
pub mod session;
pub mod shown;
pub mod terms;
pub mod watchtower;

pub use game_log::{
    Divergence, GameLog, GameLogError, Games, LogPlace, Phase, PlayedMove, RefereeLog,
};
pub use keys::{KeySource, PRIVATE_KEY_ENV, WalletError};
