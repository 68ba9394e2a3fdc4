def test_add_note(pyclient_page, scripted_agent):
    scripted_agent.on("remember milk").call("add_note", text="milk").then_say("Noted")
    page = pyclient_page.open("/")
    pyclient_page.send("remember milk")
    assert scripted_agent.wait_for_result("add_note").content == "added 'milk'"
    assert page.locator("#notes li").all_text_contents() == ["milk"]
    assert [tool.name for tool in scripted_agent.requests[0].tools] == ["add_note", "clear_notes"]
    pyclient_page.wait_for_status("idle")


def test_clear_notes_asks_first(pyclient_page, scripted_agent):
    scripted_agent.on("remember eggs").call("add_note", text="eggs").then_say("Noted")
    scripted_agent.on("clear").call("clear_notes").then_say("Cleared")
    page = pyclient_page.open("/")
    pyclient_page.send("remember eggs")
    pyclient_page.wait_for_status("idle")
    pyclient_page.send("clear the notes")
    pyclient_page.approve("clear_notes")  # a trusted click on the card's Approve button
    assert scripted_agent.wait_for_result("clear_notes").content == "cleared"
    assert page.locator("#notes li").count() == 0
