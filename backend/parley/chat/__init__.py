"""The chat turn: start (claim and store the message), run the assistant, finish (store the
reply, release the claim); `runner` runs any turn detached, live and stoppable."""
