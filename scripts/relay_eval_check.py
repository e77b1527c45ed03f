"""The exported relay policy's greedy message in transformers, scored by the exported outcome(), on (a) the TRL
eval's own tasks (toy_tasks.make_dataset("eval", N)) and (b) the engine's held-out eval tasks (scripts/relayEvalTasks.ts),
split by whether the Solver knows (docs/export.md). Usage: python relay_eval_check.py RECIPE_DIR tasks.json"""
import json, sys, torch
d = sys.argv[1]
sys.path.insert(0, d)
from toy_tasks import make_dataset, outcome, policy_prompt
from transformers import AutoModelForCausalLM, AutoTokenizer
m = AutoModelForCausalLM.from_pretrained(d + "/policy").eval(); tok = AutoTokenizer.from_pretrained(d + "/policy")
max_new = json.load(open(d + "/policy/playground.json"))["max_completion_length"]
def run(tasks):
    known = unknown = silent_k = silent_u = ok = words = 0
    for t in tasks:
        ids = tok(policy_prompt(t), return_tensors="pt", add_special_tokens=False).input_ids
        with torch.no_grad(): out = m.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=max_new, do_sample=False, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
        text = tok.decode(out[0, ids.shape[1]:], skip_special_tokens=True); o = outcome(t, text)
        n = len(text.split()); words += n; ok += o["r_task"]
        if t["known"]: known += 1; silent_k += n == 0
        else: unknown += 1; silent_u += n == 0
    return {"tasks": len(tasks), "known": known, "accuracy": ok / len(tasks), "tokens": words / len(tasks), "silenceKnown": silent_k / max(1, known), "silenceUnknown": silent_u / max(1, unknown)}
engine = json.load(open(sys.argv[2]))["tasks"]
trl_tasks = [json.loads(r["task"]) for r in make_dataset("eval", len(engine), prompt_format="tokens")]
engine_tasks = [{"secret": t["secret"], "j": t["j"] - 1, "known": t["known"]} for t in engine]  # the engine's j counts from 1
print(json.dumps({"trl_eval_tasks": run(trl_tasks), "engine_eval_tasks": run(engine_tasks)}))
