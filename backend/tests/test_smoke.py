async def test_health_reports_database_and_model(server):
    response = await server.client.get("/api/health")
    assert response.status_code == 200
    body = response.json()
    assert body["database"] == "ok" and body["model"] == "offline" and body["offline_model"] is True


async def test_chat_adds_a_task(server):
    response = await server.chat("alice", "add a task to buy milk")
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["tool_calls"][0]["tool"] == "add_task"
    tasks = await server.client.get("/api/alice/tasks", headers=server.headers("alice"))
    assert [t["title"] for t in tasks.json()] == ["buy milk"]
