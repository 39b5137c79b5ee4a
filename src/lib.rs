//! warpalign
