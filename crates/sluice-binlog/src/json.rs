//! Placeholder until the binary JSON decoder lands.
use crate::error::{DecodeError, Result};
pub fn render_json(_bin: &[u8], _out: &mut String) -> Result<()> {
    Err(DecodeError::unsupported("JSON", "not yet"))
}
pub fn apply_json_diff(_before: &[u8], _diff: &[u8]) -> Result<String> {
    Err(DecodeError::unsupported("JSON", "not yet"))
}
