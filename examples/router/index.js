// A router worker: the first path segment names a Room object.
//   GET  /lobby          → the room's messages
//   POST /lobby  (text)  → appends a message
//   GET  /               → usage
import { DurableObject } from "cloudflare:workers";

export class Room extends DurableObject {
  async fetch(request) {
    const room = this.ctx.id.name;
    const messages = (await this.ctx.storage.get("messages")) ?? [];
    if (request.method === "POST") {
      const text = (await request.text()).trim();
      if (!text) return new Response("empty message\n", { status: 400 });
      messages.push({ text, at: Date.now() });
      await this.ctx.storage.put("messages", messages);
      return Response.json({ room, count: messages.length }, { status: 201 });
    }
    return Response.json({ greeting: `${this.env.GREETING} ${room}`, room, messages });
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const room = decodeURIComponent(url.pathname.slice(1).split("/")[0]);
    if (!room) {
      return new Response("usage: GET /<room> to read, POST /<room> with a text body to post\n");
    }
    return env.ROOMS.getByName(room).fetch(request);
  },
};
