import { navigate } from "../router";

/** Settings' way to Models and Connections. */
export function ModelsLink() {
  return (
    <section>
      <h2>Models</h2>
      <p>
        <a
          href="/settings/models"
          onClick={(e) => {
            e.preventDefault();
            navigate("/settings/models");
          }}
        >
          Add, test and remove model providers
        </a>
      </p>
      <h2>Connections</h2>
      <p>
        <a
          href="/settings/connections"
          onClick={(e) => {
            e.preventDefault();
            navigate("/settings/connections");
          }}
        >
          Your connections (MCP servers) and each tool's choice
        </a>
      </p>
    </section>
  );
}
