"""An agent's tool loop over a workspace, in process.

The model here is scripted (a list of the tool calls a model would make, in OpenAI's
Chat Completions shape), so the example runs anywhere; swap `ScriptedModel.respond` for a
real client call (`client.chat.completions.create(model=..., messages=messages,
tools=tools.openai())`) and the loop is the same.

    python3 examples/agent_loop.py
"""

import json

import computer

# What the model answers, turn by turn: tool calls, then its final message.
TURNS = [
    [("write", {"path": "calc.sh", "content": "add() { echo $(( $1 + $2 )); }\n"})],
    [("write", {"path": "test.sh", "content": (
        ". ./calc.sh\n"
        "pass=0\n"
        "[ \"$(add 2 3)\" = 5 ] && pass=$((pass + 1))\n"
        "[ \"$(add -1 1)\" = 0 ] && pass=$((pass + 1))\n"
        "echo \"tests passed: $pass\"\n"
    )})],
    [("exec", {"command": "bash test.sh"}), ("read", {"path": "missing.txt"})],
    "The tests pass.",
]


class ScriptedModel:
    """Answers with the next turn of a script, as a chat model's assistant message."""

    def __init__(self, turns):
        self.turns = iter(turns)
        self.calls = 0

    def respond(self, messages, tools):
        assert tools and messages  # what a real model would be given
        turn = next(self.turns)
        if isinstance(turn, str):
            return {"role": "assistant", "content": turn}
        calls = []
        for name, args in turn:
            self.calls += 1
            calls.append({
                "id": f"call_{self.calls}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            })
        return {"role": "assistant", "content": None, "tool_calls": calls}


def run(ws, model, task):
    tools = ws.tools()
    messages = [{"role": "user", "content": task}]
    while True:
        reply = model.respond(messages, tools.openai())
        messages.append(reply)
        if not reply.get("tool_calls"):
            return reply["content"]
        for call in reply["tool_calls"]:
            name = call["function"]["name"]
            try:
                result = tools.call(name, call["function"]["arguments"])
            except (OSError, ValueError, computer.ComputerError) as e:
                result = f"error: {e}"  # the model is told, and goes on
            print(f"[{name}] {result.strip()}")
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})


if __name__ == "__main__":
    ws = computer.Workspace.memory()
    answer = run(ws, ScriptedModel(TURNS), "Write an add function in shell, with tests, and run them.")
    print(answer)
