from echoserver import serve

serve()
