import { navigate } from "../router";

/** What a new chat offers to start with: lines that work with any engine,
 *  the mock one included. */
export const STARTERS = [
  "Run `ls -la` in my work folder",
  "Make me a chart of this week's steps",
  "List files here",
  "Remember that I like short answers",
];

/** A few lines to start with, under an empty chat; with no model set up,
 *  the way to add one beside them. */
export function Starters(props: { noModel: boolean; onPick: (text: string) => void }) {
  return (
    <div class="starters">
      <p class="quiet">Try one, or write your own below:</p>
      <ul aria-label="Ways to start">
        {STARTERS.map((s) => (
          <li key={s}>
            <button class="small" onClick={() => props.onPick(s)}>
              {s}
            </button>
          </li>
        ))}
      </ul>
      {props.noModel && (
        <p class="quiet">
          These run on Conch's practice engine until you{" "}
          <a
            href="/settings/models"
            onClick={(e) => {
              e.preventDefault();
              navigate("/settings/models");
            }}
          >
            Add a model
          </a>
          .
        </p>
      )}
    </div>
  );
}
