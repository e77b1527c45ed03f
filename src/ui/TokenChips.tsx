// Generated tokens, each coloured by its log-prob at sampling time (hover or
// focus: the token, log-prob and probability). Silence is said in words.
import type { TranscriptTurn } from '../worker/protocol';
import { logpColor } from './palette';

export function TokenChips({ turn }: { turn: TranscriptTurn }) {
  return (
    <span className="chips">
      {turn.silent && <span className="silence">silence: nothing was sent</span>}
      {turn.tokens.map((t, i) => {
        const lp = turn.logp[i];
        const p = Math.exp(lp);
        return (
          <span key={i} className="chip" style={{ background: logpColor(lp) }} title={`${t}: log-prob ${lp.toFixed(3)} (p = ${p.toFixed(2)})`}>
            {t}
          </span>
        );
      })}
    </span>
  );
}

export function LogpLegend() {
  return (
    <p className="logp-legend">
      Token colour = its probability when sampled:{' '}
      {[-6, -2, -0.7, -0.1, 0].map((lp) => <span key={lp} className="chip" style={{ background: logpColor(lp) }}>p {Math.exp(lp).toFixed(2)}</span>)}
    </p>
  );
}
