import { useState } from 'preact/hooks';
import { request } from '../client.ts';
import { Notice, useAction, useLoad } from '../components.tsx';
import { graphql } from '../graphql.ts';
import { setUpNextRule, upNextRuleText, type UpNextRule } from '../library.ts';

const UpNextRuleQuery = graphql(`
  query AccountUpNextRule {
    viewer {
      upNextRule
    }
  }
`);

const loadRule = async () => (await request(UpNextRuleQuery)).viewer.upNextRule;

/**
 * The account's up-next rule: which episode up next, the summary, Home Assistant and each show's
 * "Next episode" offer for a show with holes (a show can have its own, on its page).
 */
export function UpNextRuleSettings() {
  const { data: stored, reload } = useLoad(loadRule);
  /** The choice just made, shown checked while it is saved (null: the stored one). */
  const [chosen, setChosen] = useState<UpNextRule | null>(null);
  const rule = chosen ?? stored;
  const save = useAction(async (value: UpNextRule) => {
    setChosen(value);
    try {
      await setUpNextRule(value);
    } catch (failure) {
      setChosen(null);
      throw failure;
    }
    reload();
    return `Up next now offers ${upNextRuleText[value]}.`;
  });
  return (
    <section class="card" aria-labelledby="up-next-heading">
      <h2 id="up-next-heading">Up next</h2>
      <p class="hint">For a show with earlier episodes not watched (a skipped season, a partial import). A show can have its own choice on its page.</p>
      {rule && (
        <fieldset>
          <legend>Up next offers</legend>
          {(['AFTER_LAST_WATCHED', 'FIRST_UNWATCHED'] as const).map((value) => (
            <label class="check" key={value}>
              <input type="radio" name="up-next-rule" value={value} checked={rule === value} disabled={save.busy} onChange={() => void save.run(value)} /> {upNextRuleText[value][0]!.toUpperCase() + upNextRuleText[value].slice(1)}
              {value === 'AFTER_LAST_WATCHED' ? ' (the default)' : ''}
            </label>
          ))}
        </fieldset>
      )}
      <Notice outcome={save.outcome} />
    </section>
  );
}
