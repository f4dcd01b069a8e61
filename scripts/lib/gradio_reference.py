"""The reference page for scripts/bench: a Gradio app with what our first screen has (a
question box, a Run button, three Markdown panels side by side), as a Gradio user would
write it. Usage: python gradio_reference.py PORT. Serves on 127.0.0.1 only."""

import os
import sys

# No telemetry or update checks: the machine may be offline, and a benchmark must not call out.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import gradio as gr  # noqa: E402


def answer(question):
    text = f"**{question}**"
    return text, text, text


with gr.Blocks(title="Reference: three Markdown panels") as demo:
    question = gr.Textbox(label="Question")
    run = gr.Button("Run", elem_id="run", variant="primary")
    with gr.Row():
        think = gr.Markdown(label="Think-only")
        act = gr.Markdown(label="Act-only")
        react = gr.Markdown(label="ReAct")
    run.click(answer, inputs=question, outputs=[think, act, react])

demo.launch(server_name="127.0.0.1", server_port=int(sys.argv[1]), share=False)
