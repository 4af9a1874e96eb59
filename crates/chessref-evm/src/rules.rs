//! `ChessRulesView`: the deployed rules (ENCODING.md sections 5 to 9) any
//! dApp can `eth_call`.

use alloy_primitives::{Address, B256, Bytes};
use alloy_sol_types::SolCall;

use crate::{bindings::ChessRulesView as View, chain::Chain, error::EvmError};

/// A deployed `ChessRulesView` on some chain.
#[derive(Debug)]
pub struct RulesView<C: Chain> {
    chain: C,
    address: Address,
    caller: Address,
}

impl<C: Chain> RulesView<C> {
    /// Deploys a fresh `ChessRulesView` from the chain's first account.
    pub fn deploy(mut chain: C) -> Result<Self, EvmError> {
        let caller = chain.accounts()[0];
        let (address, _) = chain.deploy(caller, View::BYTECODE.clone())?;
        Ok(RulesView {
            chain,
            address,
            caller,
        })
    }

    /// A `ChessRulesView` already deployed at `address`.
    pub fn at(chain: C, address: Address) -> Self {
        let caller = chain.accounts().first().copied().unwrap_or_default();
        RulesView {
            chain,
            address,
            caller,
        }
    }

    /// The contract's address.
    pub fn address(&self) -> Address {
        self.address
    }

    /// The chain it lives on.
    pub fn chain(&mut self) -> &mut C {
        &mut self.chain
    }

    fn view<T: SolCall>(
        &mut self,
        operation: &'static str,
        call: T,
    ) -> Result<T::Return, EvmError> {
        self.chain
            .call(self.caller, self.address, Bytes::from(call.abi_encode()))?
            .decode::<T>(operation)
    }

    /// `initialState()`.
    pub fn initial_state(&mut self) -> Result<Vec<u8>, EvmError> {
        Ok(self
            .view("initialState", View::initialStateCall {})?
            .to_vec())
    }

    /// `validateState(bytes)`: 0 if valid, else the section 7 code.
    pub fn validate_state(&mut self, state: &[u8]) -> Result<u8, EvmError> {
        self.view(
            "validateState",
            View::validateStateCall {
                state: Bytes::copy_from_slice(state),
            },
        )
    }

    /// `check(state, move)`: 0 if legal, else the section 6 code.
    pub fn check(&mut self, state: &[u8], packed_move: u32) -> Result<u8, EvmError> {
        let call = View::checkCall {
            state: Bytes::copy_from_slice(state),
            r#move: alloy_primitives::aliases::U24::from(packed_move & 0xff_ffff),
        };
        self.view("check", call)
    }

    /// `play(state, move)`: the next state; an illegal move is
    /// `EvmError::Reverted` with `ContractRevert::IllegalMove(code)`.
    pub fn play(&mut self, state: &[u8], packed_move: u32) -> Result<Vec<u8>, EvmError> {
        let call = View::playCall {
            state: Bytes::copy_from_slice(state),
            r#move: alloy_primitives::aliases::U24::from(packed_move & 0xff_ffff),
        };
        Ok(self.view("play", call)?.to_vec())
    }

    /// `status(state)`: the section 8 code.
    pub fn status(&mut self, state: &[u8]) -> Result<u8, EvmError> {
        self.view(
            "status",
            View::statusCall {
                state: Bytes::copy_from_slice(state),
            },
        )
    }

    /// `repetitionKey(state)` (section 9).
    pub fn repetition_key(&mut self, state: &[u8]) -> Result<B256, EvmError> {
        self.view(
            "repetitionKey",
            View::repetitionKeyCall {
                state: Bytes::copy_from_slice(state),
            },
        )
    }

    /// `insufficientMaterial(state, white)` for one side (section 8).
    pub fn insufficient_material(&mut self, state: &[u8], white: bool) -> Result<bool, EvmError> {
        self.view(
            "insufficientMaterial",
            View::insufficientMaterialCall {
                state: Bytes::copy_from_slice(state),
                white,
            },
        )
    }

    /// `legalMoves(state)`: every legal move, packed.
    pub fn legal_moves(&mut self, state: &[u8]) -> Result<Vec<u32>, EvmError> {
        let moves = self.view(
            "legalMoves",
            View::legalMovesCall {
                state: Bytes::copy_from_slice(state),
            },
        )?;
        Ok(moves.into_iter().map(|m| m.to::<u32>()).collect())
    }
}

/// The contract's verdict on one move: `check(state, move)` answered by the
/// compiled `ChessRulesView` on a fresh in-process revm chain (what
/// `chessref check --evm` prints). `Err(rejection)` carries the section 6 code.
pub fn evm_check(
    state: &chessref_core::State,
    raw: chessref_core::RawMove,
) -> Result<Result<(), chessref_core::Rejection>, EvmError> {
    let mut view = RulesView::deploy(crate::RevmChain::new())?;
    let code = view.check(state.as_bytes(), raw.packed())?;
    if code == 0 {
        return Ok(Ok(()));
    }
    chessref_core::Rejection::from_code(code)
        .map(Err)
        .ok_or(EvmError::Decode {
            operation: "check",
            message: format!("unknown rejection code {code}"),
        })
}
