use std::fmt;

/// What a batch call can fail with; each maps to one C status code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    InvalidArgument(String),
    Gpu(String),
    Internal(String),
    /// A job's memory could not be allocated: the message names the job and the bytes asked for.
    OutOfMemory(String),
}

pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidArgument(m) => write!(f, "invalid argument: {m}"),
            Error::Gpu(m) => write!(f, "GPU error: {m}"),
            Error::Internal(m) => write!(f, "internal error: {m}"),
            Error::OutOfMemory(m) => write!(f, "out of memory: {m}"),
        }
    }
}

impl std::error::Error for Error {}
