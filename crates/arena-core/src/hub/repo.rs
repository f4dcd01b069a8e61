//! Names on the Hub: a dataset repository's id (`owner/name`), a file's path in it, the
//! address `?hub=<owner>/<name>/<path>` that opens a published run, and the API's URLs built
//! from the Hub's base URL (a setting: `https://huggingface.co`, or a stand-in in the tests).
//!
//! Every name comes from someone else (the address, a dataset list): it is checked to the
//! Hub's own rules before it goes into a URL, so no name can leave its path segment.

use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS};

/// The Hub's address when the settings name none.
pub const DEFAULT_HUB_URL: &str = "https://huggingface.co";

/// A repository's name part: the Hub allows at most 96 characters.
const MAX_NAME: usize = 96;
/// A file's path: far above the arena's own (`runs/<id>.json`).
const MAX_PATH: usize = 200;

/// A dataset repository: `owner/name`, each part checked.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RepoId {
    pub owner: String,
    pub name: String,
}

impl std::fmt::Display for RepoId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.owner, self.name)
    }
}

/// A part of a repository id as the Hub accepts it (huggingface_hub's `validate_repo_id`):
/// letters, digits, `-`, `_`, `.`; not starting or ending with `-` or `.`; no `--` or `..`.
fn valid_part(part: &str) -> bool {
    !part.is_empty()
        && part.len() <= MAX_NAME
        && part
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !part.starts_with(['-', '.'])
        && !part.ends_with(['-', '.'])
        && !part.contains("--")
        && !part.contains("..")
        && !part.ends_with(".git")
}

impl RepoId {
    /// Reads `owner/name`; says what is wrong with anything else.
    pub fn parse(text: &str) -> Result<RepoId, String> {
        let text = text.trim();
        let Some((owner, name)) = text.split_once('/') else {
            return Err(format!(
                "“{}” is not a repository: write it as owner/name.",
                shown(text)
            ));
        };
        if !valid_part(owner) || !valid_part(name) {
            return Err(format!(
                "“{}” is not a repository name the Hub accepts: letters, digits, -, _ and . only (at most {MAX_NAME} each side of the /), not starting or ending with - or ., no -- or ...",
                shown(text)
            ));
        }
        Ok(RepoId {
            owner: owner.into(),
            name: name.into(),
        })
    }
}

/// A user's text, short and plain, for a message.
fn shown(text: &str) -> String {
    crate::hidden_text::plain(text, 80)
}

/// A file's path in a repository: segments of letters, digits, `-`, `_`, `.`, none empty or
/// made of dots only.
pub fn valid_path(path: &str) -> bool {
    path.len() <= MAX_PATH
        && path.split('/').all(|segment| {
            !segment.is_empty()
                && !segment.chars().all(|c| c == '.')
                && segment
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        })
}

/// A published run's address: the repository and the file's path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HubFile {
    pub repo: RepoId,
    pub path: String,
}

impl HubFile {
    /// Reads `owner/name/path/to/file.json` (the value of `?hub=`).
    pub fn parse(text: &str) -> Result<HubFile, String> {
        let mut parts = text.splitn(3, '/');
        let (Some(owner), Some(name), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err("The Hub address is not owner/repository/path-to-file.json.".to_string());
        };
        let repo = RepoId::parse(&format!("{owner}/{name}"))?;
        if !valid_path(path) || !path.ends_with(".json") {
            return Err(format!(
                "“{}” is not the path of a run file: a .json file, its folders named with letters, digits, -, _ and . only.",
                shown(path)
            ));
        }
        Ok(HubFile {
            repo,
            path: path.into(),
        })
    }
}

impl std::fmt::Display for HubFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.repo, self.path)
    }
}

/// What a path segment may hold unescaped (names are checked before, this is belt and braces).
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'/')
    .add(b'?')
    .add(b'<')
    .add(b'>')
    .add(b'\\');

fn segment(text: &str) -> String {
    utf8_percent_encode(text, SEGMENT).to_string()
}

/// The Hub's base URL from the settings: trailing slashes dropped; the default when empty.
pub fn hub_base(setting: &str) -> String {
    let base = setting.trim().trim_end_matches('/');
    if base.is_empty() {
        DEFAULT_HUB_URL.into()
    } else {
        base.into()
    }
}

/// Whether the token may go to `base`: https, or plain http to this machine only (a token in
/// the clear over the network could be read on the way).
pub fn token_may_go_to(base: &str) -> Result<(), String> {
    match crate::origin::Origin::of(base) {
        Some(o) if o.is_https() || o.is_local() => Ok(()),
        Some(o) => Err(format!(
            "The Hub's address {o} is plain http: your token would cross the network unencrypted. Use https (or a Hub on this machine)."
        )),
        None => Err(format!(
            "“{}” is not an http(s) address of the Hub.",
            shown(base)
        )),
    }
}

fn repo_path(repo: &RepoId) -> String {
    format!("{}/{}", segment(&repo.owner), segment(&repo.name))
}

fn file_path(path: &str) -> String {
    path.split('/').map(segment).collect::<Vec<_>>().join("/")
}

/// The API's URLs, all under one base.
pub struct HubUrls<'a> {
    pub base: &'a str,
}

impl HubUrls<'_> {
    pub fn whoami(&self) -> String {
        format!("{}/api/whoami-v2", self.base)
    }
    pub fn create_repo(&self) -> String {
        format!("{}/api/repos/create", self.base)
    }
    pub fn preupload(&self, repo: &RepoId) -> String {
        format!(
            "{}/api/datasets/{}/preupload/main",
            self.base,
            repo_path(repo)
        )
    }
    pub fn commit(&self, repo: &RepoId) -> String {
        format!("{}/api/datasets/{}/commit/main", self.base, repo_path(repo))
    }
    /// What the Hub says of the repository (whether it is private).
    pub fn info(&self, repo: &RepoId) -> String {
        format!("{}/api/datasets/{}", self.base, repo_path(repo))
    }
    /// Every file of the repository, with sizes.
    pub fn tree(&self, repo: &RepoId) -> String {
        format!(
            "{}/api/datasets/{}/tree/main?recursive=true",
            self.base,
            repo_path(repo)
        )
    }
    /// Public datasets carrying `tag`, at most `limit`, the most liked first.
    pub fn datasets_tagged(&self, tag: &str, limit: usize) -> String {
        format!(
            "{}/api/datasets?filter={}&limit={limit}&sort=likes&direction=-1",
            self.base,
            segment(tag)
        )
    }
    /// A file's bytes on `main`.
    pub fn file(&self, repo: &RepoId, path: &str) -> String {
        format!(
            "{}/datasets/{}/resolve/main/{}",
            self.base,
            repo_path(repo),
            file_path(path)
        )
    }
    /// Where a person sees the repository.
    pub fn repo_page(&self, repo: &RepoId) -> String {
        format!("{}/datasets/{}", self.base, repo_path(repo))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repository_ids_follow_the_hubs_rules() {
        let ok = RepoId::parse(" alice/react-arena-results ").unwrap();
        assert_eq!(ok.to_string(), "alice/react-arena-results");
        for bad in [
            "alice",
            "alice/",
            "/x",
            "a/b/c",
            "alice/../etc",
            "alice/a..b",
            "alice/-x",
            "alice/x.",
            "alice/a--b",
            "alice/x.git",
            "al ice/x",
            "alice/x?y",
            "alice/x%2f",
            "alice/é",
        ] {
            assert!(RepoId::parse(bad).is_err(), "{bad}");
        }
        assert!(RepoId::parse(&format!("a/{}", "x".repeat(97))).is_err());
        assert!(RepoId::parse(&format!("a/{}", "x".repeat(96))).is_ok());
    }

    #[test]
    fn a_hub_address_names_a_json_file_in_a_repository_and_nothing_else() {
        let file = HubFile::parse("alice/results/runs/r-1.json").unwrap();
        assert_eq!(file.repo.to_string(), "alice/results");
        assert_eq!(file.path, "runs/r-1.json");
        assert_eq!(
            HubUrls {
                base: "http://127.0.0.1:9"
            }
            .file(&file.repo, &file.path),
            "http://127.0.0.1:9/datasets/alice/results/resolve/main/runs/r-1.json"
        );
        for bad in [
            "alice/results",
            "alice/results/",
            "alice/results/runs/../../x.json",
            "alice/results/runs//x.json",
            "alice/results/runs/x.txt",
            "alice/results/runs/x.json?download=1",
            "alice/results/runs/x.json#f",
            "alice/results/%2e%2e/x.json",
            "https://evil.example/a/b.json",
            "//evil.example/a/b.json",
        ] {
            assert!(HubFile::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_token_goes_only_over_https_or_to_this_machine() {
        assert!(token_may_go_to("https://huggingface.co").is_ok());
        assert!(token_may_go_to("http://127.0.0.1:8080").is_ok());
        assert!(token_may_go_to("http://localhost:1").is_ok());
        assert!(token_may_go_to("http://hub.example")
            .unwrap_err()
            .contains("plain http"));
        assert!(token_may_go_to("javascript:alert(1)").is_err());
        assert!(token_may_go_to("https://user@hub.example").is_err());
    }

    #[test]
    fn urls_stay_under_the_base() {
        let urls = HubUrls {
            base: &hub_base("https://huggingface.co/"),
        };
        let repo = RepoId::parse("alice/results").unwrap();
        assert_eq!(
            urls.commit(&repo),
            "https://huggingface.co/api/datasets/alice/results/commit/main"
        );
        assert_eq!(
            urls.datasets_tagged("react-arena", 50),
            "https://huggingface.co/api/datasets?filter=react-arena&limit=50&sort=likes&direction=-1"
        );
        assert_eq!(hub_base("  "), DEFAULT_HUB_URL);
    }
}
