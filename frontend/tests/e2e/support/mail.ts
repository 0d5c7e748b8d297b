import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import path from "node:path";
import { stopProcess, type Managed } from "./processes";

const PYTHON = path.resolve(__dirname, "../../../../.venv/bin/python");

export interface Mail {
  to: string;
  subject: string;
  body: string;
}

/** The backend tests' SMTP server in its own process (fake_smtp_server.py): what Parley mails lands here. */
export class MailSink {
  smtpPort = 0;
  private httpUrl = "";
  private process: Managed | null = null;

  get smtpUrl(): string {
    return `smtp://127.0.0.1:${this.smtpPort}`;
  }

  async start(logFile: string): Promise<void> {
    const child = spawn(PYTHON, [path.join(__dirname, "fake_smtp_server.py")], { stdio: ["ignore", "pipe", "pipe"], detached: true });
    child.stderr?.pipe(createWriteStream(logFile, { flags: "a" }));
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    this.process = { child, exited };
    const first = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const newline = out.indexOf("\n");
        if (newline >= 0) resolve(out.slice(0, newline));
      });
      void exited.then((code) => reject(new Error(`the SMTP sink exited (${code}); see ${logFile}`)));
    });
    const started = JSON.parse(first) as { smtp_port: number; http_url: string };
    this.smtpPort = started.smtp_port;
    this.httpUrl = started.http_url;
  }

  async messages(): Promise<Mail[]> {
    const response = await fetch(`${this.httpUrl}/messages`);
    return (await response.json()) as Mail[];
  }

  /** The verification link in the last mail to `to` (undefined until one arrived). */
  async verificationLink(to: string): Promise<string | undefined> {
    const mails = (await this.messages()).filter((mail) => mail.to === to);
    return mails.at(-1)?.body.match(/https?:\/\/\S+\/verify-email\/\S+/)?.[0];
  }

  async stop(): Promise<void> {
    if (this.process) await stopProcess(this.process);
    this.process = null;
  }
}
