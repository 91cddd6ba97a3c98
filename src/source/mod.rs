//! Where mail comes from: files and directories (more sources land with the inbox).

pub mod walk;
