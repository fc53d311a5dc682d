//! The gateway: Conch over HTTP. Listens on 127.0.0.1 by default; every
//! request passes the Host and origin checks (`checks.rs`), and every `/api`
//! route but health and sign-in needs a session or an access key (`auth`).

pub mod auth;
pub mod backups;
pub mod checks;
mod error;
mod from_where;
mod html_page;
mod json_body;
mod routes;
pub mod serve;
mod state;

use axum::extract::DefaultBodyLimit;
use axum::http::{Method, StatusCode, Uri};
use axum::routing::{delete, get, post};
use axum::{middleware, Router};
use tower_http::timeout::TimeoutLayer;

pub use checks::AllowedHosts;
pub use error::ApiError;
pub use routes::apps::{AppsPage, NewConnection, Refused};
pub use serve::{serve, Limits};
pub use state::AppState;

/// The largest request body the API takes.
pub const BODY_LIMIT: usize = 1024 * 1024;

pub fn router(state: AppState) -> Router {
    let signed_in = Router::new()
        .route("/api/session", get(routes::session::current))
        .route(
            "/api/chats",
            post(routes::chats::create).get(routes::chats::list),
        )
        .route(
            "/api/chats/{id}",
            get(routes::chats::show).delete(routes::chats::delete),
        )
        .route("/api/chats/{id}/title", post(routes::chats::rename))
        .route("/api/trash", get(routes::chats::trashed))
        .route("/api/trash/{id}/restore", post(routes::chats::restore))
        .route("/api/chats/{id}/archive", post(routes::chats::archive))
        .route("/api/chats/{id}/model", post(routes::chats::pick_model))
        .route("/api/chats/{id}/retry", post(routes::chats::retry))
        .route("/api/chats/{id}/undo", post(routes::undo::undo))
        .route(
            "/api/chats/{id}/regenerate",
            post(routes::chats::regenerate),
        )
        .route(
            "/api/providers",
            get(routes::providers::list).post(routes::providers::add),
        )
        .route(
            "/api/providers/default",
            post(routes::providers::set_default),
        )
        .route("/api/providers/{name}", delete(routes::providers::remove))
        .route(
            "/api/spending",
            get(routes::spending::get).post(routes::spending::set_caps),
        )
        .route(
            "/api/providers/{name}/prices",
            post(routes::spending::set_prices),
        )
        .route("/api/providers/{name}/test", post(routes::providers::test))
        .route("/api/chats/{id}/events", get(routes::chats::events))
        .route(
            "/api/chats/{id}/browser/{file}",
            get(routes::browser::screenshot),
        )
        .route("/api/chats/{id}/stream", get(routes::stream::stream))
        .route(
            "/api/chats/{id}/messages",
            post(routes::chats::post_message),
        )
        .route(
            "/api/chats/{id}/permissions/{ask}",
            post(routes::turns::answer),
        )
        .route("/api/chats/{id}/mode", post(routes::turns::set_mode))
        .route("/api/chats/{id}/grants", get(routes::turns::grants))
        .route(
            "/api/chats/{id}/grants/{grant}",
            axum::routing::delete(routes::turns::revoke_grant),
        )
        .route("/api/chats/{id}/stop", post(routes::turns::stop))
        .route(
            "/api/chats/{id}/skills/{skill}/stop-holding",
            post(routes::turns::stop_holding),
        )
        .route("/api/activity", get(routes::activity::list))
        .route("/api/search", get(routes::search::find))
        .route(
            "/api/stop-all",
            get(routes::stop_all::get).post(routes::stop_all::stop),
        )
        .route("/api/resume", post(routes::stop_all::resume))
        .route(
            "/api/memories",
            get(routes::memories::list).post(routes::memories::add),
        )
        .route(
            "/api/memories/{id}",
            axum::routing::patch(routes::memories::edit).delete(routes::memories::forget),
        )
        .route("/api/memories/{id}/keep", post(routes::memories::keep))
        .route("/api/marks", get(routes::marks::list))
        .route("/api/marks/clear", post(routes::marks::clear))
        .route(
            "/api/settings/safety",
            get(routes::security::safety).post(routes::security::set_safety),
        )
        .route(
            "/api/settings/contacts",
            get(routes::contacts::list).put(routes::contacts::set),
        )
        .route("/api/security", get(routes::security::checkup))
        .route(
            "/api/security/repair",
            get(routes::repair::look).post(routes::repair::repair),
        )
        .route("/api/passwords", get(routes::passwords::show))
        .route(
            "/api/backups",
            get(routes::backups::list).post(routes::backups::make),
        )
        .route("/api/backups/schedule", post(routes::backups::schedule))
        .route("/api/backups/{name}", get(routes::backups::download))
        .route(
            "/api/backups/{name}/restore",
            post(routes::backups::restore),
        )
        .route(
            "/api/passwords/providers/{name}",
            delete(routes::passwords::remove_provider).put(routes::passwords::replace_provider),
        )
        .route(
            "/api/passwords/apps/{name}",
            delete(routes::passwords::remove_app),
        )
        .route("/api/session/confirm", post(routes::session::confirm))
        .route(
            "/api/sessions",
            delete(routes::session::sign_out_everywhere),
        )
        .route("/api/artifacts", get(routes::artifacts::list))
        .route(
            "/api/artifacts/{id}",
            get(routes::artifacts::show).delete(routes::artifacts::remove),
        )
        .route("/api/artifacts/{id}/pin", post(routes::artifacts::pin))
        .route("/api/artifacts/{id}/unpin", post(routes::artifacts::unpin))
        .route(
            "/api/artifacts/{id}/refresh",
            post(routes::artifacts::refresh),
        )
        .route(
            "/api/artifacts/mermaid-frame",
            get(routes::artifacts::mermaid_frame),
        )
        .route("/api/artifacts/{id}/diff", get(routes::artifacts::diff))
        .route(
            "/api/artifacts/{id}/versions/{n}",
            get(routes::artifacts::text),
        )
        .route(
            "/api/artifacts/{id}/versions/{n}/frame",
            get(routes::artifacts::frame),
        )
        .route(
            "/api/artifacts/{id}/versions/{n}/download",
            get(routes::artifacts::download),
        )
        .route("/api/apps", get(routes::apps::list).post(routes::apps::add))
        .route("/api/apps/{app}", post(routes::apps::set_on))
        .route("/api/apps/{app}/tools/{tool}", post(routes::apps::choose))
        .route("/api/skills", get(routes::skills::list))
        .route("/api/skill-folders", get(routes::skills::folders))
        .route("/api/skills/{id}", get(routes::skills::show))
        .route("/api/skills/{id}/enable", post(routes::skills::enable))
        .route("/api/skills/{id}/disable", post(routes::skills::disable))
        .route(
            "/api/keys",
            get(routes::keys::list).post(routes::keys::create),
        )
        .route("/api/keys/{id}", delete(routes::keys::revoke))
        .route(
            "/api/routines",
            get(routes::routines::list).post(routes::routines::add),
        )
        .route("/api/routines/{name}", delete(routes::routines::remove))
        .route("/api/routines/{name}/run", post(routes::routines::run))
        .route("/api/notifications", get(routes::notifications::stream))
        .route(
            "/api/settings/notifications",
            get(routes::notifications::choices).post(routes::notifications::set_choices),
        )
        .route("/api/setup-link", post(routes::setup_link::issue))
        .route("/api/bridges", get(routes::bridges::list))
        .route("/api/bridges/{app}", post(routes::bridges::add))
        .route("/api/bridges/{app}/link", post(routes::bridges::link))
        .route("/api/bridges/{app}/allowed", post(routes::bridges::allow))
        .route(
            "/api/bridges/{app}/allowed/{user}",
            delete(routes::bridges::disallow),
        )
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            auth::require_sign_in,
        ));
    let open = Router::new()
        .route("/api/health", get(routes::health::health))
        .route("/hooks/{app}", post(routes::bridges::hook))
        .route(
            "/api/session",
            post(routes::session::sign_in).delete(routes::session::sign_out),
        )
        .route("/", get(routes::pages::home))
        .route(
            "/setup",
            get(routes::pages::setup_page).post(routes::pages::setup_submit),
        )
        .route("/assets/conch.css", get(routes::pages::css))
        .route("/assets/{file}", get(routes::web::file))
        .route("/favicon.svg", get(routes::web::top_file))
        .route("/chats/{id}", get(routes::pages::home))
        .route("/skills", get(routes::pages::home))
        .route("/skills/{id}", get(routes::pages::home))
        .route("/settings", get(routes::pages::home))
        .route("/settings/security", get(routes::pages::home))
        .route("/settings/models", get(routes::pages::home))
        .route("/settings/apps", get(routes::pages::home))
        .route("/settings/connections", get(routes::pages::home))
        .route("/settings/chat-apps", get(routes::pages::home))
        .route("/settings/trash", get(routes::pages::home))
        .route("/settings/passwords", get(routes::pages::home))
        .route("/settings/backups", get(routes::pages::home))
        .route("/activity", get(routes::pages::home))
        .route("/routines", get(routes::pages::home))
        .route("/apps/{id}", get(routes::pages::home))
        .route("/memories", get(routes::pages::home));
    Router::new()
        .merge(signed_in)
        .merge(open)
        .fallback(not_found)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            state.limits.request,
        ))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            checks::check_request,
        ))
        .with_state(state)
}

async fn not_found(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        format!(
            "There's nothing at {method} {}. See docs/api.md for the routes.",
            uri.path().chars().take(200).collect::<String>()
        ),
    )
}
