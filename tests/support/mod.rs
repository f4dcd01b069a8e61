//! Shared rig for the host integration and browser tests. Each test binary uses a part of it.
#![allow(dead_code)]

pub mod attacker;
pub mod axe;
pub mod browser;
pub mod cdp;
pub mod first_load;
pub mod first_run;
pub mod fixtures;
pub mod hidden_style;
pub mod http_model;
pub mod https_endpoint;
pub mod hub;
pub mod kernels;
pub mod layout;
pub mod llama;
pub mod mcp;
pub mod mock;
pub mod model_files;
pub mod network_log;
